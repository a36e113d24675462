/*
 * sem_errors.c — error behaviour under MPI_ERRORS_RETURN and user error
 * handlers: the error classes of invalid arguments, truncation in blocking and
 * nonblocking receives (MPI_ERR_IN_STATUS and status.MPI_ERROR from Waitall),
 * handlers inherited by Comm_dup, MPI_Comm_call_errhandler, user error
 * classes/codes/strings.  Only error classes and class strings are printed
 * (full error strings may contain addresses).
 */
#include "semutil.h"

static int handler_calls, handler_last;
static MPI_Comm handler_comm;
static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_last = *code;
    handler_comm = *comm;
}

static void class_string(int code)
{
    int cls = -1, len = 0;
    char s[MPI_MAX_ERROR_STRING];
    MPI_Error_class(code, &cls);
    MPI_Error_string(cls, s, &len);
    out("  class %s string '%s' len %d", errname(code), s, len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    int x[8] = {0}, rc;
    MPI_Status st;
    MPI_Request rq;

    rc = MPI_Send(x, 1, MPI_INT, np, 0, MPI_COMM_WORLD);
    out("send to rank size: %s", errname(rc));
    class_string(rc);
    rc = MPI_Send(x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD);
    out("send to rank -5: %s", errname(rc));
    rc = MPI_Recv(x, 1, MPI_INT, np + 3, 0, MPI_COMM_WORLD, &st);
    out("recv from rank size+3: %s", errname(rc));
    rc = MPI_Send(x, 1, MPI_INT, 0, -1, MPI_COMM_WORLD);
    out("send with tag -1: %s", errname(rc));
    class_string(rc);
    rc = MPI_Send(x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    out("send with count -1: %s", errname(rc));
    rc = MPI_Send(x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    out("send with MPI_DATATYPE_NULL: %s", errname(rc));
    rc = MPI_Isend(x, 1, MPI_INT, np, 0, MPI_COMM_WORLD, &rq);
    out("isend to rank size: %s", errname(rc));
    rc = MPI_Irecv(x, 1, MPI_INT, np, 0, MPI_COMM_WORLD, &rq);
    out("irecv from rank size: %s", errname(rc));
    rc = MPI_Bcast(x, 1, MPI_INT, np, MPI_COMM_WORLD);
    out("bcast with root size: %s", errname(rc));
    rc = MPI_Reduce(x, x + 1, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
    out("reduce with MPI_OP_NULL: %s", errname(rc));
    int tub = 0, *ptub, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ptub, &flag);
    if (flag) tub = *ptub;
    rc = MPI_Send(x, 1, MPI_INT, 0, tub == 0x7fffffff ? -2 : tub + 1, MPI_COMM_WORLD);
    out("send with tag above MPI_TAG_UB: %s", errname(rc));
    MPI_Datatype t = MPI_INT;
    rc = MPI_Type_free(&t);
    out("type_free of MPI_INT: %s", errname(rc));
    MPI_Request nr = MPI_REQUEST_NULL;
    poison(&st);
    rc = MPI_Wait(&nr, &st);
    out("wait on MPI_REQUEST_NULL: %s empty %d", errname(rc), is_empty(&st));
    rc = MPI_Error_class(123456, &flag);
    out("error_class of a bogus code: %s", rc == MPI_SUCCESS ? "MPI_SUCCESS" : "failed");

    /* truncation */
    int partner = me ^ 1;
    if (partner < np) {
        int low = me < partner;
        int big[8] = {1, 2, 3, 4, 5, 6, 7, 8}, small[4] = {0};
        if (low) {
            C(MPI_Send(big, 8, MPI_INT, partner, 10, MPI_COMM_WORLD));
            C(MPI_Send(big, 8, MPI_INT, partner, 11, MPI_COMM_WORLD));
            C(MPI_Send(big, 2, MPI_INT, partner, 12, MPI_COMM_WORLD));
            C(MPI_Send(big, 8, MPI_INT, partner, 13, MPI_COMM_WORLD));
            C(MPI_Send(big, 8, MPI_INT, partner, 14, MPI_COMM_WORLD));
        } else {
            poison(&st);
            rc = MPI_Recv(small, 4, MPI_INT, partner, 10, MPI_COMM_WORLD, &st);
            out("recv truncated: %s source %s tag %s", errname(rc), rankname(st.MPI_SOURCE), tagname(st.MPI_TAG));
            rc = MPI_Irecv(small, 4, MPI_INT, partner, 11, MPI_COMM_WORLD, &rq);
            out("irecv: %s", errname(rc));
            poison(&st);
            rc = MPI_Wait(&rq, &st);
            out("wait truncated: %s source %s tag %s null %d", errname(rc), rankname(st.MPI_SOURCE),
                tagname(st.MPI_TAG), rq == MPI_REQUEST_NULL);
            MPI_Request q[2];
            MPI_Status sts[2];
            int ok[2];
            C(MPI_Irecv(ok, 2, MPI_INT, partner, 12, MPI_COMM_WORLD, &q[0]));
            C(MPI_Irecv(small, 4, MPI_INT, partner, 13, MPI_COMM_WORLD, &q[1]));
            poison(&sts[0]);
            poison(&sts[1]);
            rc = MPI_Waitall(2, q, sts);
            out("waitall with one truncated: %s; status errors %s %s; sources %s %s", errname(rc),
                errname(sts[0].MPI_ERROR), errname(sts[1].MPI_ERROR), rankname(sts[0].MPI_SOURCE),
                rankname(sts[1].MPI_SOURCE));
            C(MPI_Irecv(small, 4, MPI_INT, partner, 14, MPI_COMM_WORLD, &q[0]));
            flag = 0;
            rc = MPI_SUCCESS;
            while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(&q[0], &flag, &st);
            out("test truncated: %s flag %d", errname(rc), flag);
        }
    }

    /* a user error handler, inherited by Comm_dup */
    MPI_Errhandler eh;
    C(MPI_Comm_create_errhandler(handler, &eh));
    MPI_Comm d;
    C(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    C(MPI_Comm_set_errhandler(d, eh));
    MPI_Comm d2;
    C(MPI_Comm_dup(d, &d2));
    rc = MPI_Send(x, 1, MPI_INT, np, 0, d2);
    out("user handler: send returned %s; handler called %d times with %s, on the dup %d", errname(rc),
        handler_calls, errname(handler_last), handler_comm == d2);
    rc = MPI_Comm_call_errhandler(d, MPI_ERR_OTHER);
    out("call_errhandler: returned %s; handler called %d times with %s, on d %d", errname(rc), handler_calls,
        errname(handler_last), handler_comm == d);
    MPI_Errhandler got;
    C(MPI_Comm_get_errhandler(d2, &got));
    out("get_errhandler on the dup: is ours %d", got == eh);
    C(MPI_Errhandler_free(&got));
    C(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    out("world handler is ERRORS_RETURN %d", got == MPI_ERRORS_RETURN);
    C(MPI_Errhandler_free(&got));
    C(MPI_Comm_free(&d2));
    C(MPI_Comm_free(&d));
    C(MPI_Errhandler_free(&eh));

    /* user error classes, codes, strings */
    int ucls, ucode, cls2 = -1, len;
    char s[MPI_MAX_ERROR_STRING];
    C(MPI_Add_error_class(&ucls));
    C(MPI_Add_error_code(ucls, &ucode));
    C(MPI_Add_error_string(ucode, "mpilens test error"));
    C(MPI_Error_class(ucode, &cls2));
    C(MPI_Error_string(ucode, s, &len));
    int *lastused, f2 = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &f2);
    out("user code: class matches %d, string '%s', lastusedcode >= code %d", cls2 == ucls, s,
        f2 && *lastused >= ucode);
    rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, ucode);
    out("call_errhandler with the user code under ERRORS_RETURN: returned the code %d", rc == ucode);

    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
