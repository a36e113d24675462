/*
 * top.c — `mpilens top DIR`: the live view of a run directory (live.c), from
 * any terminal, while the job runs or after it ended.
 *
 * Exit status: 0 the job ended (or --once), 3 a deadlock was found (the
 * verdict is printed and in DIR/deadlock.txt), 1 DIR cannot be read,
 * 2 usage error.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "remote.h"
#include "stream.h"
#include "symbols.h"
#include "tool.h"

extern volatile sig_atomic_t live_interrupted;
int live_bench(const char *dir, const struct live_opts *o, int n);   /* live.c */

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens top DIR [--once] [--interval S] [--sort size|age]\n"
            "                       [--deadlock-timeout S] [--stop] [--launcher PID]\n"
            "       mpilens top --listen [ADDR:]PORT --secret-file FILE [--port-file FILE]\n"
            "                       [DIR] ...\n\n"
            "Shows what every rank of the job recording into run directory DIR is doing,\n"
            "ranks in the same state grouped: WHO (ranks), WHAT (MPI routine and its peer,\n"
            "tag, root, communicator; or computing, finalized, died, not started), WHERE\n"
            "(file:line of the call; 'after MPI_X file:line' when computing) and WHEN\n"
            "(started / completed how long ago). On a terminal the table is redrawn in\n"
            "place at the bottom; otherwise a snapshot is printed every interval. On a\n"
            "run that ended (or crashed) the last state is shown once. A rank file that\n"
            "cannot be read (cut, not a rank file) is named, and counted as unreadable.\n\n"
            "When no rank makes progress for the deadlock timeout, the wait-for graph of\n"
            "the blocked calls is checked; a deadlock is reported (the cycle, the\n"
            "collective and its missing ranks, or the receive nobody will send to, with\n"
            "file:line) and written to DIR/deadlock.txt.\n\n"
            "  --once               print the current state once and exit\n"
            "  --wait               DIR holds no rank file yet: wait for the job to start\n"
            "                       (without it, mpilens top says so and exits with 1)\n"
            "  --interval S         seconds between refreshes (default 1)\n"
            "  --sort size|age      largest groups first (default), or longest waiting\n"
            "  --deadlock-timeout S seconds without progress before the check (default 10;\n"
            "                       0 turns the check off)\n"
            "  --stop               on a deadlock, stop the job: SIGTERM, then SIGKILL, to\n"
            "                       every rank process of this host (and --launcher)\n"
            "  --keep-watching      on a deadlock (without --stop), print the verdict and\n"
            "                       go on watching instead of exiting\n"
            "  --launcher PID       the job's launcher: watch until it exits; stopped too\n"
            "  --rows N, --width N  table size (default: the terminal's; --width 32 or more)\n"
            "  --listen [ADDR:]PORT the ranks come from node agents (mpilens agent) over TCP\n"
            "                       instead of DIR's rank files: listen on ADDR (default\n"
            "                       127.0.0.1; 0.0.0.0 for other hosts) and PORT (0: any free\n"
            "                       one); DIR, if given, receives deadlock.txt\n"
            "  --secret-file FILE   the job secret the agents must prove they know (64 hex\n"
            "                       digits, mode 0600); created with a new random secret when\n"
            "                       FILE does not exist; default: $MPILENS_SECRET\n"
            "  --port-file FILE     write the port listened on to FILE (with --listen PORT 0)\n"
            "  -h, --help           this text\n\n"
            "Exit status: 0 the job ended, 3 deadlock found, 1 DIR unreadable or without\n"
            "rank files (no --wait), 2 usage.\n");
}

static void on_signal(int sig)
{
    (void)sig;
    live_interrupted = 1;
}

static int num(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0 || v > 1e6) {
        fprintf(stderr, "mpilens top: %s wants a number of seconds (0.5, 2, ...), not '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cmd_top(int argc, char **argv)
{
    static const struct option opts[] = {
        {"once", no_argument, 0, 'o'},
        {"interval", required_argument, 0, 'i'},
        {"sort", required_argument, 0, 's'},
        {"deadlock-timeout", required_argument, 0, 'd'},
        {"stop", no_argument, 0, 'S'},
        {"keep-watching", no_argument, 0, 'K'},
        {"launcher", required_argument, 0, 'L'},
        {"rows", required_argument, 0, 'R'},
        {"width", required_argument, 0, 'W'},
        {"help", no_argument, 0, 'h'},
        {"bench", required_argument, 0, 'B'},   /* not in --help: bench/top_bench */
        {"listen", required_argument, 0, 'l'},
        {"secret-file", required_argument, 0, 'k'},
        {"port-file", required_argument, 0, 'P'},
        {"wait", no_argument, 0, 'w'},
        {0, 0, 0, 0},
    };
    struct live_opts o;
    memset(&o, 0, sizeof o);
    o.name = "mpilens top";
    int c, bench = 0;
    double v;
    const char *listen_on = NULL, *secret_file = NULL, *port_file = NULL;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o.once = 1; break;
        case 'i':
            if (num("--interval", optarg, &v)) return 2;
            if (v < 0.05) v = 0.05;
            o.interval = v;
            break;
        case 's':
            if (!strcmp(optarg, "size")) o.sort = LIVE_SORT_SIZE;
            else if (!strcmp(optarg, "age")) o.sort = LIVE_SORT_AGE;
            else {
                fprintf(stderr, "mpilens top: --sort is size or age, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'd':
            if (num("--deadlock-timeout", optarg, &v)) return 2;
            o.deadlock_timeout = v > 0 ? v : -1;
            break;
        case 'S': o.stop = 1; break;
        case 'K': o.keep = 1; break;
        case 'w': o.wait = 1; break;
        case 'L': {
            char *end;
            long p = strtol(optarg, &end, 10);
            if (*end || p <= 0) {
                fprintf(stderr, "mpilens top: --launcher wants a process id, not '%s'\n", optarg);
                return 2;
            }
            o.launcher = (pid_t)p;
            break;
        }
        case 'R':
        case 'W': {
            char *end;
            long n = strtol(optarg, &end, 10);
            /* the narrowest table (WHO WHAT WHERE WHEN, names cut) takes 32 columns */
            if (*end || end == optarg || n < (c == 'R' ? 3 : 32) || n > 100000) {
                fprintf(stderr, "mpilens top: %s wants a number (%d or more), not '%s'\n",
                        c == 'R' ? "--rows" : "--width", c == 'R' ? 3 : 32, optarg);
                return 2;
            }
            if (c == 'R') o.max_rows = (int)n;
            else o.width = (int)n;
            break;
        }
        case 'B': bench = atoi(optarg); break;
        case 'l': listen_on = optarg; break;
        case 'k': secret_file = optarg; break;
        case 'P': port_file = optarg; break;
        case 'h': help(stdout); return 0;
        default:
            tool_bad_option("top", argc, argv);
            return 2;
        }
    }
    if ((secret_file || port_file) && !listen_on) {
        fprintf(stderr, "mpilens top: --secret-file and --port-file go with --listen\n");
        return 2;
    }
    if (listen_on ? optind < argc - 1 : optind != argc - 1) {
        fprintf(stderr, "mpilens top: give one run directory, e.g. 'mpilens top mpilens-app-1234/'\n");
        return 2;
    }
    struct rsrv *rs = NULL;
    if (listen_on) {
        char err[512], host[256];
        int port;
        uint8_t secret[MS_SECRET_LEN];
        if (ms_parse_addr(listen_on, 1, host, sizeof host, &port, err, sizeof err) != 0) {
            fprintf(stderr, "mpilens top: --listen: %s\n", err);
            return 2;
        }
        if (secret_file && access(secret_file, F_OK) != 0 && errno == ENOENT) {
            char hex[2 * MS_SECRET_LEN + 1];
            if (ms_secret_new(secret, hex) != 0) {
                fprintf(stderr, "mpilens top: cannot draw a random secret: %s\n", strerror(errno));
                return 1;
            }
            if (ms_secret_write(secret_file, hex, err, sizeof err) != 0) {
                fprintf(stderr, "mpilens top: %s\n", err);
                return 1;
            }
            fprintf(stderr, "mpilens top: new job secret in %s (give it to the agents: --secret-file)\n",
                    secret_file);
        } else if (ms_secret_load(secret_file, secret, err, sizeof err) != 0) {
            fprintf(stderr, "mpilens top: %s\n", err);
            return 2;
        }
        rs = rs_listen(listen_on, secret, stderr, "mpilens top", err, sizeof err);
        memset(secret, 0, sizeof secret);
        if (!rs) {
            fprintf(stderr, "mpilens top: --listen: %s\n", err);
            return 1;
        }
        if (port_file) {
            char tmp[4096], line[32];
            snprintf(tmp, sizeof tmp, "%s.tmp%d", port_file, (int)getpid());
            int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            int l = snprintf(line, sizeof line, "%d\n", rs_port(rs));
            if (fd < 0 || write(fd, line, (size_t)l) != l || close(fd) != 0 || rename(tmp, port_file) != 0) {
                fprintf(stderr, "mpilens top: cannot write %s: %s\n", port_file, strerror(errno));
                rs_free(rs);
                return 1;
            }
        }
        o.remote = rs;
    }
    if (bench > 0 && !rs) {
        int rc = live_bench(argv[optind], &o, bench);
        lf_global_cleanup();
        sym_cleanup();
        return rc;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    int rc = live_watch(optind < argc ? argv[optind] : NULL, &o);
    rs_free(rs);
    lf_global_cleanup();
    sym_cleanup();
    return rc;
}
