/*
 * failsafe.c — fails in a chosen way on a chosen rank, after a known number
 * of MPI calls, for tests/cases/failsafe_*.sh.
 *
 *   failsafe MODE RANK
 *
 * Every rank first makes exactly 9 MPI calls: MPI_Init, MPI_Comm_rank,
 * MPI_Comm_size, 5 x MPI_Barrier, MPI_Allreduce.  Then rank RANK fails as
 * MODE says, on the line marked "FAIL:MODE"; the other ranks wait in
 * MPI_Barrier (line "WAIT:barrier") until the job is torn down, or, where the
 * failing rank goes on (errret, errhandler, sighandled), finish normally.
 *
 * MODE: segv bus fpe ill abrt stack term int hup quit kill exit return abort
 *       fatal (MPI error under MPI_ERRORS_ARE_FATAL) errret (under
 *       MPI_ERRORS_RETURN) errhandler (under a handler of the program's own)
 *       handlerabort (the program's handler calls MPI_Abort)
 *       sighandled (the program's own SIGTERM handler runs; the program goes on)
 *       segvhandler (the program's SIGSEGV handler runs and calls _exit(7))
 *       tstack (a thread that never calls MPI overflows its stack)
 *       killme (prints "failsafe: rank R pid P waiting" and waits outside
 *       MPI for a SIGKILL from outside, standing in for the OOM killer)
 *       none (nobody fails)
 * Prints what the program itself observes (handlers run, return codes,
 * handler queries) so that runs with and without the runtime can be compared.
 */
#include <assert.h>
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

static int rank;
static volatile sig_atomic_t got_term;

static void on_term(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    got_term = sig;
}

static void on_segv(int sig)
{
    static const char m[] = "failsafe: own SIGSEGV handler ran\n";
    (void)sig;
    if (write(1, m, sizeof m - 1) < 0) _exit(8);
    _exit(7);
}

static void my_errhandler(MPI_Comm *comm, int *code, ...)
{
    int cls = -1;
    (void)comm;
    MPI_Error_class(*code, &cls);
    printf("failsafe: rank %d: own error handler ran, class %d\n", rank, cls);
    fflush(stdout);
}

static void abort_errhandler(MPI_Comm *comm, int *code, ...)
{
    (void)code;
    MPI_Abort(*comm, 5); /* FAIL:handlerabort */
}

/* on one line: the overflow faults somewhere in it */
static int recurse(int n) { volatile char pad[256]; pad[0] = (char)n; return n < 0 ? 0 : recurse(n + 1) + pad[0]; } /* FAIL:stack */

static void *overflow_thread(void *arg)
{
    (void)arg;
    recurse(0);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: failsafe MODE RANK\n");
        return 2;
    }
    const char *mode = argv[1];
    int victim = atoi(argv[2]), size, x = 1, sum = 0;

    if (!strcmp(mode, "sighandled")) {   /* installed before MPI_Init */
        struct sigaction sa, q;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_term;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGTERM, NULL, &q);
        printf("failsafe: sigaction query returns own handler: %s\n",
               q.sa_sigaction == on_term && (q.sa_flags & SA_SIGINFO) ? "yes" : "no");
    }

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 5; i++) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* LAST:allreduce */

    if (rank != victim || !strcmp(mode, "none")) {
        MPI_Barrier(MPI_COMM_WORLD); /* WAIT:barrier */
        MPI_Finalize();
        return 0;
    }
    fflush(stdout);
    if (!strcmp(mode, "segv")) {
        *(volatile int *)0 = 1; /* FAIL:segv */
    } else if (!strcmp(mode, "bus")) {
        char tmpl[] = "/tmp/failsafe-bus-XXXXXX";
        int fd = mkstemp(tmpl);
        unlink(tmpl);
        volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        p[0] = 1; /* FAIL:bus */
    } else if (!strcmp(mode, "fpe")) {
        volatile int zero = 0;
        x = x / zero; /* FAIL:fpe */
    } else if (!strcmp(mode, "ill")) {
        __builtin_trap(); /* FAIL:ill */
    } else if (!strcmp(mode, "abrt")) {
        assert(argc < 0); /* FAIL:abrt */
    } else if (!strcmp(mode, "stack")) {
        x = recurse(0);
    } else if (!strcmp(mode, "tstack")) {
        pthread_t t;
        pthread_create(&t, NULL, overflow_thread, NULL);
        pthread_join(t, NULL);
    } else if (!strcmp(mode, "term")) {
        kill(getpid(), SIGTERM); /* FAIL:term */
    } else if (!strcmp(mode, "int")) {
        kill(getpid(), SIGINT); /* FAIL:int */
    } else if (!strcmp(mode, "hup")) {
        kill(getpid(), SIGHUP); /* FAIL:hup */
    } else if (!strcmp(mode, "quit")) {
        kill(getpid(), SIGQUIT); /* FAIL:quit */
    } else if (!strcmp(mode, "kill")) {
        kill(getpid(), SIGKILL); /* FAIL:kill */
    } else if (!strcmp(mode, "killme")) {
        printf("failsafe: rank %d pid %d waiting\n", rank, (int)getpid()); /* FAIL:killme */
        fflush(stdout);
    } else if (!strcmp(mode, "exit")) {
        exit(3); /* FAIL:exit */
    } else if (!strcmp(mode, "return")) {
        return 4; /* FAIL:return */
    } else if (!strcmp(mode, "abort")) {
        MPI_Abort(MPI_COMM_WORLD, 3); /* FAIL:abort */
    } else if (!strcmp(mode, "fatal")) {
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
        printf("failsafe: default handler is MPI_ERRORS_ARE_FATAL: %s\n", eh == MPI_ERRORS_ARE_FATAL ? "yes" : "no");
        fflush(stdout);
        MPI_Errhandler_free(&eh);
        MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD); /* FAIL:fatal */
    } else if (!strcmp(mode, "errret") || !strcmp(mode, "errhandler") || !strcmp(mode, "handlerabort")) {
        MPI_Errhandler eh = MPI_ERRORS_RETURN, got;
        if (!strcmp(mode, "errhandler")) MPI_Comm_create_errhandler(my_errhandler, &eh);
        if (!strcmp(mode, "handlerabort")) MPI_Comm_create_errhandler(abort_errhandler, &eh);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
        printf("failsafe: get returns the handler set: %s\n", got == eh ? "yes" : "no");
        MPI_Errhandler_free(&got);
        int rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD); /* FAIL:errret FAIL:errhandler SEND:err */
        int cls = -1;
        MPI_Error_class(rc, &cls);
        printf("failsafe: rank %d: MPI_Send returned class %d (MPI_ERR_RANK: %s)\n", rank, cls,
               cls == MPI_ERR_RANK ? "yes" : "no");
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    } else if (!strcmp(mode, "sighandled")) {
        kill(getpid(), SIGTERM); /* FAIL:sighandled */
        while (!got_term) {
        }
        printf("failsafe: rank %d: own SIGTERM handler ran, going on\n", rank);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    } else if (!strcmp(mode, "segvhandler")) {
        signal(SIGSEGV, on_segv);
        *(volatile int *)0 = 1; /* FAIL:segvhandler */
    } else {
        fprintf(stderr, "failsafe: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (;;) pause();
}
