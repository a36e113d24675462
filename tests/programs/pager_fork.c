/* pager_fork.c — a child forked by an MPI process that goes on calling MPI
 * (local calls: MPI_Comm_rank) after its parent has finalized and exited.
 * Under the runtime the child shares the parent's rank-file mappings; before
 * the fix it wrote into the parent's chunks (its copy of the pool of ready
 * chunks) and died of SIGBUS once the parent's exit cut the file below them.
 *
 *   pager_fork RESULT_FILE
 *
 * Rank 0 makes N1 calls (several chunks), forks; a middle process (own
 * session, output to /dev/null) forks the worker and writes its end to
 * RESULT_FILE: "exit N" or "signal N".  The worker makes N1 calls, waits for
 * the parent to exit (end of a pipe), makes N1 more and exits 0.  Every rank
 * prints its own call count, which the rank file must hold exactly.  Two
 * more threads per rank call MPI_Get_version without end, through
 * MPI_Finalize and exit (chunk changes while the runtime shuts down). */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N1 60000

static void calls(int n)
{
    int r;
    for (int i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
}

/* MPI_Get_version, not MPI_Finalized: Open MPI 4.1's MPI_Finalized walks
 * its hook framework, which MPI_Finalize tears down, and a thread calling it
 * meanwhile died of SIGSEGV inside Open MPI now and then (CI, 2026-11-26:
 * ompi_hook_base_mpi_finalized_top, address 0x20); MPI_Get_version is as
 * local, allowed at any time, and recorded the same way. */
static void *finalized_loop(void *arg)
{
    (void)arg;
    int v, sv;
    for (;;) MPI_Get_version(&v, &sv);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pager_fork RESULT_FILE\n");
        return 2;
    }
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    pthread_t t;
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t, NULL, finalized_loop, NULL) != 0) return 1;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    calls(N1);
    usleep(300000);            /* the pager (if any) fills its pool */
    int fds[2] = {-1, -1};
    if (rank == 0) {
        if (pipe(fds) != 0) return 1;
        pid_t p = fork();
        if (p < 0) return 1;
        if (p == 0) {
            int nul = open("/dev/null", O_RDWR);
            dup2(nul, 0);
            dup2(nul, 1);
            dup2(nul, 2);
            setsid();
            close(fds[1]);
            pid_t w = fork();
            if (w == 0) {
                calls(N1);
                char c;
                while (read(fds[0], &c, 1) > 0) {
                }
                calls(N1);
                _exit(0);
            }
            close(fds[0]);
            int st = 0;
            char buf[64];
            if (w < 0 || waitpid(w, &st, 0) != w)
                snprintf(buf, sizeof buf, "no worker\n");
            else if (WIFSIGNALED(st))
                snprintf(buf, sizeof buf, "signal %d\n", WTERMSIG(st));
            else
                snprintf(buf, sizeof buf, "exit %d\n", WEXITSTATUS(st));
            int f = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (f >= 0) {
                if (write(f, buf, strlen(buf)) < 0) {
                }
                close(f);
            }
            _exit(0);
        }
        close(fds[0]);
    }
    printf("rank %d: %d MPI_Comm_rank calls\n", rank, N1 + 1);
    MPI_Finalize();
    return 0;                  /* the pipe's write end closes when this process is gone */
}
