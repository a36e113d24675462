/*
 * sem_init.c — initialisation and finalisation as the program sees them:
 * MPI_Init / MPI_Init(NULL, NULL) / MPI_Init_thread at each level (argument
 * 1), the provided level, Initialized/Finalized before and after, the argv the
 * program gets back, predefined attributes and names, and the exit status
 * (argument 2: a number to exit with after MPI_Finalize, or "nofinalize" to
 * exit 0 without calling it, or "abort" to call MPI_Abort(…, 3) on the last rank).
 */
#include "semutil.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "init";
    const char *end = argc > 2 ? argv[2] : "0";
    int flag = -1, fin = -1, rc, provided = -99;
    MPI_Initialized(&flag);
    MPI_Finalized(&fin);
    int before_init = flag, before_fin = fin;
    if (!strcmp(mode, "init")) rc = MPI_Init(&argc, &argv);
    else if (!strcmp(mode, "init-null")) rc = MPI_Init(NULL, NULL);
    else {
        int want = !strcmp(mode, "single") ? MPI_THREAD_SINGLE
                 : !strcmp(mode, "funneled") ? MPI_THREAD_FUNNELED
                 : !strcmp(mode, "serialized") ? MPI_THREAD_SERIALIZED
                 : MPI_THREAD_MULTIPLE;
        rc = MPI_Init_thread(&argc, &argv, want, &provided);
    }
    /* the error handlers the program finds, before it sets any */
    MPI_Errhandler weh = MPI_ERRHANDLER_NULL, seh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &weh);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &seh);
    int world_fatal = weh == MPI_ERRORS_ARE_FATAL, self_fatal = seh == MPI_ERRORS_ARE_FATAL;
    MPI_Comm dupw;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupw);
    MPI_Errhandler deh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(dupw, &deh);
    int dup_fatal = deh == MPI_ERRORS_ARE_FATAL;
    MPI_Errhandler_free(&weh);
    MPI_Errhandler_free(&seh);
    MPI_Errhandler_free(&deh);
    MPI_Comm_free(&dupw);
    su_start();
    out("initial error handlers are MPI_ERRORS_ARE_FATAL: world %d self %d dup of world %d", world_fatal,
        self_fatal, dup_fatal);
    out("mode %s: init %s, provided %s", mode, errname(rc), provided == -99 ? "-" : levelname(provided));
    MPI_Initialized(&flag);
    MPI_Finalized(&fin);
    out("initialized before %d after %d; finalized before %d now %d", before_init, flag, before_fin, fin);
    int q = -1, mainf = -1;
    C(MPI_Query_thread(&q));
    C(MPI_Is_thread_main(&mainf));
    out("query_thread %s is_thread_main %d", levelname(q), mainf);
    out("argc %d", argc);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i == 0) { const char *s = strrchr(a, '/'); a = s ? s + 1 : a; }
        out("argv[%d] = %s", i, a);
    }
    int ver = 0, sub = 0;
    C(MPI_Get_version(&ver, &sub));
    out("version %d.%d", ver, sub);
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    C(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    out("world name %s", name);
    C(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    out("self name %s", name);
    int *v, f;
    C(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &f));
    out("tag_ub present %d >= 32767 %d", f, f && *v >= 32767);
    C(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &f));
    out("wtime_is_global present %d", f);
    C(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &f));
    out("appnum present %d value %d", f, f ? *v : -1);
    char pn[MPI_MAX_PROCESSOR_NAME];
    C(MPI_Get_processor_name(pn, &len));
    out("processor name length > 0: %d", len > 0);
    double t0 = MPI_Wtime(), t1 = MPI_Wtime();
    out("wtime monotonic %d wtick > 0 %d", t1 >= t0, MPI_Wtick() > 0);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    C(MPI_Get_library_version(lib, &len));
    out("library version length > 0: %d", len > 0);
    int size;
    C(MPI_Comm_size(MPI_COMM_SELF, &size));
    out("self size %d", size);
    if (!strcmp(end, "nofinalize")) {
        if (me == 0) printf("rank 0 exits without MPI_Finalize\n");
        fflush(stdout);
        C(MPI_Barrier(MPI_COMM_WORLD));
        exit(0);
    }
    if (!strcmp(end, "abort")) {
        if (me == 0) printf("rank %d calls MPI_Abort\n", np - 1);
        fflush(stdout);
        C(MPI_Barrier(MPI_COMM_WORLD));
        if (me == np - 1) MPI_Abort(MPI_COMM_WORLD, 3);
        for (;;) MPI_Barrier(MPI_COMM_WORLD);
    }
    finish();
    return atoi(end);
}
