/*
 * sem_bsend.c — buffered sends through a user buffer given to
 * MPI_Buffer_attach: Bsend and Ibsend, Buffer_detach returning the same
 * address and size (and waiting for the messages), reattaching, the error of
 * a too small buffer (MPI_ERRORS_RETURN).
 */
#include "semutil.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    int partner = me ^ 1;
    if (partner < np) {
        int low = me < partner;
        MPI_Status st;
        int ps = 0;
        C(MPI_Pack_size(100, MPI_INT, MPI_COMM_WORLD, &ps));
        int size = 3 * (ps + MPI_BSEND_OVERHEAD);
        char *buf = malloc(size);
        C(MPI_Buffer_attach(buf, size));
        int data[3][100], r[100];
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 100; i++) data[k][i] = me * 10000 + k * 100 + i;

        /* three Bsends fill the buffer exactly; the receiver waits for a go first,
         * so the data really sits in the buffer */
        if (low) {
            for (int k = 0; k < 3; k++) C(MPI_Bsend(data[k], 100, MPI_INT, partner, 10 + k, MPI_COMM_WORLD));
            for (int k = 0; k < 3; k++) data[k][0] = -1; /* buffered: changing the source is fine */
            C(MPI_Send(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD));
        } else {
            C(MPI_Recv(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int k = 2; k >= 0; k--) {
                poison(&st);
                C(MPI_Recv(r, 100, MPI_INT, partner, 10 + k, MPI_COMM_WORLD, &st));
                out("bsend %d: %d..%d %s", k, r[0], r[99], stat_str(&st, MPI_INT));
            }
        }
        /* detach waits until the buffered messages are delivered */
        void *b = NULL;
        int bs = -1;
        C(MPI_Buffer_detach(&b, &bs));
        out("detach: same address %d, size %s", b == (void *)buf, bs == size ? "same" : "different");

        /* reattach; Ibsend + Wait */
        C(MPI_Buffer_attach(buf, size));
        MPI_Request rq;
        if (low) {
            C(MPI_Ibsend(data[1], 100, MPI_INT, partner, 20, MPI_COMM_WORLD, &rq));
            poison(&st);
            C(MPI_Wait(&rq, &st));
            out("ibsend wait: null %d", rq == MPI_REQUEST_NULL);
        } else {
            C(MPI_Recv(r, 100, MPI_INT, partner, 20, MPI_COMM_WORLD, &st));
            out("ibsend: %d..%d %s", r[0], r[99], stat_str(&st, MPI_INT));
        }

        C(MPI_Buffer_detach(&b, &bs));
        out("detach after ibsend: same address %d", b == (void *)buf);

        /* a tiny buffer, a zero-byte Bsend fits in its overhead */
        char *tiny = malloc(MPI_BSEND_OVERHEAD + 8);
        C(MPI_Buffer_attach(tiny, MPI_BSEND_OVERHEAD + 8));
        if (low) C(MPI_Bsend(NULL, 0, MPI_INT, partner, 32, MPI_COMM_WORLD));
        else {
            C(MPI_Recv(r, 1, MPI_INT, partner, 32, MPI_COMM_WORLD, &st));
            out("zero-byte bsend: %s", stat_str(&st, MPI_INT));
        }
        C(MPI_Buffer_detach(&b, &bs));
        out("tiny detach: same %d size %d", b == (void *)tiny, bs - MPI_BSEND_OVERHEAD);
        /* more than the buffer holds: MPI_ERR_BUFFER (nothing is sent) */
        C(MPI_Buffer_attach(buf, size));
        int *big = calloc(10000, sizeof(int));
        if (low) {
            int rc = MPI_Bsend(big, 1000, MPI_INT, partner, 30, MPI_COMM_WORLD);
            out("bsend larger than the buffer: %s", errname(rc));
        }
        C(MPI_Buffer_detach(&b, &bs));
        out("detach after the error: same address %d", b == (void *)buf);
        /* (attaching twice, Bsend without a buffer and detaching without one
         *  are left out: Open MPI 4.1 answers them with codes that are not
         *  error codes and afterwards loses buffered messages; and a Bsend
         *  that fails with MPI_ERR_BUFFER above the eager limit leaves a later
         *  MPI_Barrier hanging there, so the failing message is small) */

        free(tiny);
        free(big);
        free(buf);
        /* Nothing may be pending for the partner: tag 30 was never sent. */
        int flag = -1;
        C(MPI_Barrier(MPI_COMM_WORLD));
        C(MPI_Iprobe(partner, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        out("pending after the errors: %d", flag);
    } else {
        C(MPI_Barrier(MPI_COMM_WORLD));
    }
    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
