/*
 * sem_fault.c — how a failing program ends, which must not change under the
 * runtime.  Argument 1 (what the last rank does after a barrier):
 *   handler    install SIGUSR1 and SIGSEGV handlers, raise SIGUSR1, report
 *              that the program's own handlers ran and are still installed;
 *              everyone finishes normally
 *   segv       write through a null pointer (SIGSEGV, default action)
 *   segv-own   the same with the program's own SIGSEGV handler, which
 *              prints and _exit(42)s
 *   abort      abort()
 *   fatal      send to an invalid rank under the default MPI_ERRORS_ARE_FATAL
 *   exit3      exit(3) without MPI_Finalize
 *   atexit     an atexit handler that prints; normal finish
 * The last rank prints the mode first; the other ranks wait in a barrier
 * that the failing rank never reaches.
 */
#include <signal.h>
#include <unistd.h>
#include "semutil.h"

static volatile sig_atomic_t got_usr1;
static void on_usr1(int s) { got_usr1 = 1; }
static void on_segv(int s)
{
    static const char msg[] = "own SIGSEGV handler ran\n";
    if (write(1, msg, sizeof msg - 1) < 0) _exit(43);
    _exit(42);
}
static void at_exit(void) { if (me == 0) printf("atexit handler ran on rank 0\n"); fflush(stdout); }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "handler";
    if (!strcmp(mode, "handler") || !strcmp(mode, "segv-own")) {
        signal(SIGUSR1, on_usr1);
        signal(SIGSEGV, on_segv);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int last = me == np - 1;
    /* only the rank that fails prints (the order of lines from different
     * ranks is up to the launcher) */
    int normal = !strcmp(mode, "handler") || !strcmp(mode, "atexit");
    if (last && !normal) { printf("mode %s\n", mode); fflush(stdout); }
    if (normal) out("mode %s", mode);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(mode, "handler")) {
        raise(SIGUSR1);
        struct sigaction sa;
        sigaction(SIGSEGV, NULL, &sa);
        struct sigaction su;
        sigaction(SIGUSR1, NULL, &su);
        out("usr1 handled %d, SIGSEGV handler is ours %d, SIGUSR1 handler is ours %d", (int)got_usr1,
            sa.sa_handler == on_segv, su.sa_handler == on_usr1);
        return finish();
    }
    if (!strcmp(mode, "atexit")) {
        atexit(at_exit);
        return finish();
    }
    if (last) {
        if (!strcmp(mode, "segv") || !strcmp(mode, "segv-own")) {
            volatile int *p = NULL;
            *p = 1;
        } else if (!strcmp(mode, "abort")) {
            abort();
        } else if (!strcmp(mode, "fatal")) {
            int x = 0;
            MPI_Send(&x, 1, MPI_INT, np, 0, MPI_COMM_WORLD);
            printf("fatal error returned\n");
            fflush(stdout);
        } else if (!strcmp(mode, "exit3")) {
            exit(3);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
