/*
 * calibrate.c — `mpilens calibrate`: measures the latency α (ns per
 * message) and the time per byte β (ns per byte) of point-to-point messages
 * on this machine (or between the nodes a launcher gives), with a ping-pong
 * over sizes from 0 to 4 MiB (tool/calibrate/pingpong.c, built per MPI),
 * fits t(n) = α + β·n to the one-way times, and writes them to a file that
 * `mpilens report` reads for the critical path's cost measures
 * (docs/CRITPATH.md, "Cost model").
 *
 * The fit minimises the relative error, sum ((α + β·n − t) / t)², so the
 * small sizes decide α and the large ones β, as in Hockney's model; the
 * file keeps the measured table beside the two numbers.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define CAL_MAX 32

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens calibrate [--mpi openmpi|mpich] [-o FILE] [-f]\n"
            "                         [-- LAUNCHER ARGS...]\n\n"
            "Measures the cost of a point-to-point message on this machine: a ping-pong\n"
            "between two ranks over sizes from 0 to 4 MiB, fitted to t(n) = alpha + beta*n\n"
            "(alpha: latency per message, ns; beta: time per byte, ns).  mpilens report\n"
            "uses them for the critical path's bandwidth and latency costs.  The result\n"
            "goes to FILE (default: $MPILENS_CALIBRATION, else\n"
            "$XDG_CONFIG_HOME/mpilens/calibration or ~/.config/mpilens/calibration),\n"
            "which report reads by default; report's --alpha/--beta still win.\n\n"
            "  --mpi M          the MPI to measure: openmpi or mpich (default: the first\n"
            "                   installed of the two)\n"
            "  -o, --output F   write the calibration to F\n"
            "  -f, --force      replace an existing calibration file\n"
            "  -- LAUNCHER...   start the ping-pong with this command (e.g. '-- srun -N 2\n"
            "                   -n 2' to measure between two nodes); its two first ranks\n"
            "                   measure.  Default: mpirun -n 2 on this machine\n"
            "  -q, --quiet      print nothing but errors\n"
            "  -h, --help       this text\n");
}

/* The default calibration file, into b (empty: no home to put it in). */
void calibrate_default_path(char *b, size_t n)
{
    const char *e = getenv("MPILENS_CALIBRATION"), *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
    if (e && *e) snprintf(b, n, "%s", e);
    else if (x && *x) snprintf(b, n, "%s/mpilens/calibration", x);
    else if (h && *h) snprintf(b, n, "%s/.config/mpilens/calibration", h);
    else b[0] = 0;
}

int calibrate_read(const char *path, double *alpha_ns, double *beta_ns, char *err, size_t nerr)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, nerr, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char line[256];
    int got = 0;
    double a = -1, b = -1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (sscanf(line, "alpha_ns %lf", &a) == 1) got |= 1;
        else if (sscanf(line, "beta_ns_per_byte %lf", &b) == 1) got |= 2;
    }
    fclose(f);
    if (got != 3 || !(a >= 0) || !(b >= 0) || a > 1e9 || b > 1e9) {
        snprintf(err, nerr, "%s is not a calibration file of mpilens calibrate (alpha_ns and beta_ns_per_byte)",
                 path);
        return -1;
    }
    *alpha_ns = a;
    *beta_ns = b;
    return 0;
}

/* Fit t = a + b n minimising sum ((a + b n - t)/t)^2: weighted least squares
 * with weights 1/t^2.  Returns 0, or -1 when the points do not determine it. */
static int fit(const double *n, const double *t, int k, double *a, double *b)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < k; i++) {
        if (!(t[i] > 0)) continue;
        double w = 1.0 / (t[i] * t[i]);
        sw += w; sx += w * n[i]; sy += w * t[i]; sxx += w * n[i] * n[i]; sxy += w * n[i] * t[i];
    }
    double d = sw * sxx - sx * sx;
    if (!(d > 0)) return -1;
    *b = (sw * sxy - sx * sy) / d;
    *a = (sy - *b * sx) / sw;
    if (*a < 0) {   /* latency cannot be negative: refit the slope through 0 */
        *a = 0;
        *b = sxy / sxx;
    }
    if (*b < 0) *b = 0;
    return 0;
}

static int mkdirs(const char *path)   /* the folders above path */
{
    char b[4096];
    snprintf(b, sizeof b, "%s", path);
    for (char *p = b + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(b, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

static int exe_exists(const char *name)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char b[4096];
    for (const char *p = path; *p;) {
        const char *e = strchr(p, ':');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        snprintf(b, sizeof b, "%.*s/%s", (int)l, p, name);
        if (access(b, X_OK) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"mpi", required_argument, 0, 'm'}, {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
        {"quiet", no_argument, 0, 'q'},     {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    const char *mpi = NULL, *out = NULL;
    int force = 0, quiet = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+m:o:fqh", opts, NULL)) != -1) {
        switch (c) {
        case 'm': mpi = optarg; break;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case 'h': help(stdout); return 0;
        default: tool_bad_option("calibrate", argc, argv); return 2;
        }
    }
    int dashdash = optind > 1 && !strcmp(argv[optind - 1], "--");
    if (optind < argc && !dashdash) {
        fprintf(stderr, "mpilens calibrate: unexpected '%s'; a launcher goes after --, e.g. "
                        "'mpilens calibrate -- srun -N 2 -n 2'\n", argv[optind]);
        return 2;
    }
    if (dashdash && optind >= argc) {
        fprintf(stderr, "mpilens calibrate: nothing after '--': give the launcher, e.g. -- mpirun -n 2\n");
        return 2;
    }
    if (mpi && strcmp(mpi, "openmpi") && strcmp(mpi, "mpich")) {
        fprintf(stderr, "mpilens calibrate: --mpi is openmpi or mpich, not '%s'\n", mpi);
        return 2;
    }
    char prog[4096], path[4096];
    const char *cands[2] = {"openmpi", "mpich"};
    if (!mpi) {
        for (int i = 0; i < 2 && !mpi; i++) {
            snprintf(prog, sizeof prog, "%s/../lib/mpilens/mpilens-pingpong-%s", mpilens_self_dir(), cands[i]);
            if (access(prog, X_OK) == 0) mpi = cands[i];
        }
        if (!mpi) {
            fprintf(stderr, "mpilens calibrate: no ping-pong program next to mpilens (%s/../lib/mpilens/"
                            "mpilens-pingpong-*): was mpilens built with an MPI installed?\n", mpilens_self_dir());
            return 1;
        }
    }
    snprintf(prog, sizeof prog, "%s/../lib/mpilens/mpilens-pingpong-%s", mpilens_self_dir(), mpi);
    if (access(prog, X_OK) != 0) {
        fprintf(stderr, "mpilens calibrate: %s is missing: mpilens was built without %s\n", prog, mpi);
        return 1;
    }
    if (out) snprintf(path, sizeof path, "%s", out);
    else calibrate_default_path(path, sizeof path);
    if (!path[0]) {
        fprintf(stderr, "mpilens calibrate: no HOME to keep the calibration in: give -o FILE\n");
        return 2;
    }
    struct stat st;
    if (!force && stat(path, &st) == 0) {
        fprintf(stderr, "mpilens calibrate: %s exists: -f replaces it, -o writes elsewhere\n", path);
        return 1;
    }

    /* the command */
    char *av[64 + 16];
    int k = 0;
    if (dashdash) {
        for (int i = optind; i < argc && k < 64; i++) av[k++] = argv[i];
    } else if (!strcmp(mpi, "openmpi")) {
        av[k++] = exe_exists("mpirun.openmpi") ? "mpirun.openmpi" : "mpirun";
        if (geteuid() == 0 && !getenv("OMPI_ALLOW_RUN_AS_ROOT")) av[k++] = "--allow-run-as-root";
        av[k++] = "-n"; av[k++] = "2";
    } else {
        av[k++] = exe_exists("mpiexec.mpich") ? "mpiexec.mpich" : "mpiexec";
        av[k++] = "-n"; av[k++] = "2";
    }
    av[k++] = prog;
    av[k] = NULL;
    if (!quiet) {
        fprintf(stderr, "mpilens calibrate: ping-pong between 2 ranks (%s), sizes 0 B to 4 MiB:", mpi);
        for (int i = 0; i < k - 1; i++) fprintf(stderr, " %s", av[i]);
        fprintf(stderr, " mpilens-pingpong-%s\n", mpi);
    }
    int pfd[2];
    if (pipe(pfd) != 0) {
        fprintf(stderr, "mpilens calibrate: pipe: %s\n", strerror(errno));
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpilens calibrate: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        close(pfd[1]);
        unsetenv("LD_PRELOAD");          /* the measurement is never recorded */
        setenv("MPILENS_DISABLE", "1", 1);
        execvp(av[0], av);
        fprintf(stderr, "mpilens calibrate: cannot start %s: %s\n", av[0], strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    FILE *in = fdopen(pfd[0], "r");
    double n[CAL_MAX], t[CAL_MAX];
    int m = 0;
    char line[256];
    while (in && fgets(line, sizeof line, in)) {
        double a, b;
        if (sscanf(line, "%lf %lf", &a, &b) == 2 && m < CAL_MAX) {
            n[m] = a;
            t[m] = b;
            if (!quiet) fprintf(stderr, "  %9.0f B  %12.1f ns one way\n", a, b);
            m++;
        }
    }
    if (in) fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || m < 3) {
        if (WIFEXITED(status))
            fprintf(stderr, "mpilens calibrate: the ping-pong failed (exit status %d, %d of 9 sizes measured); "
                            "nothing written\n", WEXITSTATUS(status), m);
        else
            fprintf(stderr, "mpilens calibrate: the ping-pong failed (signal %d, %d of 9 sizes measured); "
                            "nothing written\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0, m);
        return 1;
    }
    double alpha, beta;
    if (fit(n, t, m, &alpha, &beta) != 0) {
        fprintf(stderr, "mpilens calibrate: the times measured do not fit alpha + beta*n; nothing written\n");
        return 1;
    }
    if (mkdirs(path) != 0) {
        fprintf(stderr, "mpilens calibrate: cannot make the folder of %s: %s\n", path, strerror(errno));
        return 1;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "mpilens calibrate: cannot write %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    fprintf(f, "# mpilens calibrate: %s, %s, %s\n", mpi, host, when);
    fprintf(f, "alpha_ns %.3f\nbeta_ns_per_byte %.6f\n", alpha, beta);
    fprintf(f, "# bytes one_way_ns model_ns\n");
    for (int i = 0; i < m; i++) fprintf(f, "# %.0f %.1f %.1f\n", n[i], t[i], alpha + beta * n[i]);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "mpilens calibrate: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return 1;
    }
    if (!quiet)
        printf("alpha = %.1f ns per message, beta = %.4f ns per byte (%.2f GB/s); written to %s\n", alpha, beta,
               beta > 0 ? 1.0 / beta : INFINITY, path);
    return 0;
}
