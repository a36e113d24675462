/*
 * sem_system.c — an MPI program that starts other programs (system, popen):
 * they inherit LD_PRELOAD and MPILENS_DIR, run as usual and leave nothing in
 * the run directory.
 */
#include <sys/wait.h>
#include "semutil.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    fflush(stdout);
    int rc = system("exit 3");
    out("system(exit 3): exited %d status %d", WIFEXITED(rc), WEXITSTATUS(rc));
    FILE *p = popen("echo piped from rank $((1 + 1)) && /bin/true", "r");
    char line[128] = "";
    if (p && fgets(line, sizeof line, p)) line[strcspn(line, "\n")] = 0;
    int pc = p ? pclose(p) : -1;
    out("popen: '%s' pclose %d", line, pc);
    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
