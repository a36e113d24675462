/*
 * sem_ignore.c — MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE in every call that
 * takes a status, including wildcard and PROC_NULL receives (where a tool
 * would like to know the source); status arrays are not written past their end.
 */
#include "semutil.h"

static int partner;
static void go(void) { C(MPI_Send(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD)); }
static void wait_go(void) { C(MPI_Recv(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    partner = me ^ 1;
    if (partner < np) {
        int low = me < partner;
        int v = me * 11, r = -1, flag, idx, outc, ind[4];
        int a[4], b[4];
        MPI_Request q[4];

        /* blocking */
        if (low) C(MPI_Send(&v, 1, MPI_INT, partner, 10, MPI_COMM_WORLD));
        else {
            C(MPI_Recv(&r, 1, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            out("recv ignore: %d", r);
        }
        if (!low) C(MPI_Send(&v, 1, MPI_INT, partner, 11, MPI_COMM_WORLD));
        else {
            C(MPI_Recv(&r, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            out("recv any/any ignore: %d", r);
        }
        C(MPI_Recv(&r, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        out("recv PROC_NULL ignore: %d", r);
        C(MPI_Sendrecv(&v, 1, MPI_INT, partner, 12, &r, 1, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
        out("sendrecv ignore: %d", r);
        int rep[2] = {me, me + 1};
        C(MPI_Sendrecv_replace(rep, 2, MPI_INT, partner, 13, partner, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        out("sendrecv_replace ignore: %d %d", rep[0], rep[1]);

        /* Wait, Test */
        C(MPI_Irecv(&r, 1, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &q[0]));
        C(MPI_Isend(&v, 1, MPI_INT, partner, 20, MPI_COMM_WORLD, &q[1]));
        C(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
        C(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
        out("wait ignore: %d", r);
        C(MPI_Irecv(&r, 1, MPI_INT, partner, 21, MPI_COMM_WORLD, &q[0]));
        C(MPI_Isend(&v, 1, MPI_INT, partner, 21, MPI_COMM_WORLD, &q[1]));
        flag = 0;
        while (!flag) C(MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE));
        flag = 0;
        while (!flag) C(MPI_Test(&q[1], &flag, MPI_STATUS_IGNORE));
        out("test ignore: %d", r);

        /* Waitall / Testall */
        for (int i = 0; i < 2; i++) {
            b[i] = me * 100 + i;
            C(MPI_Irecv(&a[i], 1, MPI_INT, partner, 30 + i, MPI_COMM_WORLD, &q[i]));
            C(MPI_Isend(&b[i], 1, MPI_INT, partner, 30 + i, MPI_COMM_WORLD, &q[2 + i]));
        }
        C(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
        out("waitall ignore: %d %d", a[0], a[1]);
        for (int i = 0; i < 2; i++) {
            C(MPI_Irecv(&a[i], 1, MPI_INT, MPI_ANY_SOURCE, 32 + i, MPI_COMM_WORLD, &q[i]));
            C(MPI_Isend(&b[i], 1, MPI_INT, partner, 32 + i, MPI_COMM_WORLD, &q[2 + i]));
        }
        flag = 0;
        while (!flag) C(MPI_Testall(4, q, &flag, MPI_STATUSES_IGNORE));
        out("testall ignore: %d %d", a[0], a[1]);

        /* Waitany / Testany: the partner lets one through at a time */
        if (low) {
            C(MPI_Irecv(&a[0], 1, MPI_INT, partner, 40, MPI_COMM_WORLD, &q[0]));
            C(MPI_Irecv(&a[1], 1, MPI_INT, partner, 41, MPI_COMM_WORLD, &q[1]));
            go();
            idx = -9;
            C(MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE));
            out("waitany ignore: index %s value %d", countname(idx), a[1]);
            go();
            flag = 0;
            while (!flag) C(MPI_Testany(2, q, &idx, &flag, MPI_STATUS_IGNORE));
            out("testany ignore: index %s value %d", countname(idx), a[0]);
            /* Waitsome / Testsome */
            for (int i = 0; i < 3; i++) C(MPI_Irecv(&a[i], 1, MPI_INT, MPI_ANY_SOURCE, 50 + i, MPI_COMM_WORLD, &q[i]));
            go();
            int seen[3] = {0, 0, 0}, got = 0;
            while (got < 3) {
                outc = -9;
                C(MPI_Waitsome(3, q, &outc, ind, MPI_STATUSES_IGNORE));
                if (outc == MPI_UNDEFINED || outc < 0) break;
                for (int k = 0; k < outc; k++) seen[ind[k]]++, got++;
            }
            out("waitsome ignore: seen %d %d %d values %d %d %d", seen[0], seen[1], seen[2], a[0], a[1], a[2]);
            for (int i = 0; i < 2; i++) C(MPI_Irecv(&a[i], 1, MPI_INT, partner, 60 + i, MPI_COMM_WORLD, &q[i]));
            go();
            got = 0;
            seen[0] = seen[1] = 0;
            while (got < 2) {
                outc = -9;
                C(MPI_Testsome(2, q, &outc, ind, MPI_STATUSES_IGNORE));
                if (outc == MPI_UNDEFINED || outc < 0) break;
                for (int k = 0; k < outc; k++) seen[ind[k]]++, got++;
            }
            out("testsome ignore: seen %d %d values %d %d", seen[0], seen[1], a[0], a[1]);
        } else {
            wait_go();
            v = 410;
            C(MPI_Send(&v, 1, MPI_INT, partner, 41, MPI_COMM_WORLD));
            wait_go();
            v = 400;
            C(MPI_Send(&v, 1, MPI_INT, partner, 40, MPI_COMM_WORLD));
            wait_go();
            for (int i = 2; i >= 0; i--) {
                v = 500 + i;
                C(MPI_Send(&v, 1, MPI_INT, partner, 50 + i, MPI_COMM_WORLD));
            }
            wait_go();
            for (int i = 0; i < 2; i++) {
                v = 600 + i;
                C(MPI_Send(&v, 1, MPI_INT, partner, 60 + i, MPI_COMM_WORLD));
            }
        }

        /* probes */
        if (low) {
            v = 77;
            C(MPI_Send(&v, 1, MPI_INT, partner, 70, MPI_COMM_WORLD));
            C(MPI_Send(&v, 1, MPI_INT, partner, 71, MPI_COMM_WORLD));
            C(MPI_Send(&v, 1, MPI_INT, partner, 72, MPI_COMM_WORLD));
            C(MPI_Send(&v, 1, MPI_INT, partner, 73, MPI_COMM_WORLD));
        } else {
            C(MPI_Probe(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            C(MPI_Recv(&r, 1, MPI_INT, partner, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            flag = 0;
            while (!flag) C(MPI_Iprobe(partner, 71, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            C(MPI_Recv(&r, 1, MPI_INT, partner, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_Message m;
            C(MPI_Mprobe(partner, 72, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
            C(MPI_Mrecv(&r, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
            flag = 0;
            while (!flag) C(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE));
            C(MPI_Mrecv(&r, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
            out("probes with ignore: last %d", r);
        }

        /* Request_get_status, and a status array one longer than needed */
        C(MPI_Isend(&v, 1, MPI_INT, partner, 80, MPI_COMM_WORLD, &q[0]));
        C(MPI_Irecv(&r, 1, MPI_INT, partner, 80, MPI_COMM_WORLD, &q[1]));
        flag = 0;
        while (!flag) C(MPI_Request_get_status(q[1], &flag, MPI_STATUS_IGNORE));
        MPI_Status sts[3];
        poison(&sts[2]);
        MPI_Status ref;
        poison(&ref);
        C(MPI_Waitall(2, q, sts));
        out("status past the end untouched: %d", memcmp(&sts[2], &ref, sizeof ref) == 0);
    }
    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
