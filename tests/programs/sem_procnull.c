/*
 * sem_procnull.c — MPI_PROC_NULL as destination and source: return codes,
 * statuses (source PROC_NULL, tag ANY_TAG, count 0), buffers left alone, in
 * every kind of point-to-point call and on the edges of a non-periodic
 * Cartesian topology (shifts and neighbour collectives).
 */
#include "semutil.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    MPI_Status st, sts[3];
    MPI_Request rq, rqs[3];
    int buf[4] = {11, 22, 33, 44};
    int flag;
    char bsendbuf[4096];
    C(MPI_Buffer_attach(bsendbuf, sizeof bsendbuf));

    C(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    C(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    C(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    C(MPI_Bsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    out("sends to PROC_NULL done");

    poison(&st);
    C(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    out("recv from PROC_NULL: %s buf %d %d %d %d", stat_str(&st, MPI_INT), buf[0], buf[1], buf[2], buf[3]);
    poison(&st);
    C(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    out("recv from PROC_NULL, ANY_TAG: %s", stat_str(&st, MPI_INT));

    C(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rq));
    poison(&st);
    C(MPI_Wait(&rq, &st));
    out("isend PROC_NULL wait: null %d", rq == MPI_REQUEST_NULL);
    C(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rq));
    poison(&st);
    flag = 0;
    while (!flag) C(MPI_Test(&rq, &flag, &st));
    out("irecv PROC_NULL test: flag %d %s", flag, stat_str(&st, MPI_INT));
    C(MPI_Issend(buf, 1, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[0]));
    C(MPI_Ibsend(buf, 1, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[1]));
    C(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[2]));
    for (int i = 0; i < 3; i++) poison(&sts[i]);
    C(MPI_Waitall(3, rqs, sts));
    out("waitall on PROC_NULL requests: receive %s", stat_str(&sts[2], MPI_INT));
    C(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rqs[0]));
    int idx = -9;
    poison(&st);
    C(MPI_Waitany(1, rqs, &idx, &st));
    out("waitany on a PROC_NULL receive: index %s %s", countname(idx), stat_str(&st, MPI_INT));

    poison(&st);
    C(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    out("probe PROC_NULL: %s", stat_str(&st, MPI_INT));
    flag = -1;
    poison(&st);
    C(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    out("iprobe PROC_NULL: flag %d %s", flag, stat_str(&st, MPI_INT));
    MPI_Message m;
    poison(&st);
    C(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
    out("mprobe PROC_NULL: message is NO_PROC %d %s", m == MPI_MESSAGE_NO_PROC, stat_str(&st, MPI_INT));
    poison(&st);
    C(MPI_Mrecv(buf, 4, MPI_INT, &m, &st));
    out("mrecv NO_PROC: %s message null %d", stat_str(&st, MPI_INT), m == MPI_MESSAGE_NULL);

    /* persistent, twice */
    MPI_Request pr[2];
    C(MPI_Send_init(buf, 4, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &pr[0]));
    C(MPI_Recv_init(buf, 4, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &pr[1]));
    for (int it = 0; it < 2; it++) {
        C(MPI_Startall(2, pr));
        poison(&sts[0]);
        poison(&sts[1]);
        C(MPI_Waitall(2, pr, sts));
        out("persistent PROC_NULL %d: recv %s", it, stat_str(&sts[1], MPI_INT));
    }
    C(MPI_Request_free(&pr[0]));
    C(MPI_Request_free(&pr[1]));

    /* Sendrecv and Sendrecv_replace */
    poison(&st);
    C(MPI_Sendrecv(buf, 2, MPI_INT, MPI_PROC_NULL, 5, buf + 2, 2, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    out("sendrecv PROC_NULL: %s buf %d %d %d %d", stat_str(&st, MPI_INT), buf[0], buf[1], buf[2], buf[3]);
    poison(&st);
    C(MPI_Sendrecv_replace(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    out("sendrecv_replace PROC_NULL: %s buf %d %d %d %d", stat_str(&st, MPI_INT), buf[0], buf[1], buf[2], buf[3]);

    /* non-periodic line: the ends talk to PROC_NULL */
    MPI_Comm line;
    int dims[1] = {np}, periods[1] = {0};
    C(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line));
    int lo, hi, lr;
    MPI_Comm_rank(line, &lr);
    C(MPI_Cart_shift(line, 0, 1, &lo, &hi));
    out("cart shift: %s %s", rankname(lo), rankname(hi));
    int s = 1000 + lr, r = -1;
    poison(&st);
    C(MPI_Sendrecv(&s, 1, MPI_INT, hi, 6, &r, 1, MPI_INT, lo, 6, line, &st));
    out("shift up: got %d %s", r, stat_str(&st, MPI_INT));
    r = -1;
    poison(&st);
    C(MPI_Sendrecv(&s, 1, MPI_INT, lo, 7, &r, 1, MPI_INT, hi, 7, line, &st));
    out("shift down: got %d %s", r, stat_str(&st, MPI_INT));
    int nb[2] = {-1, -1};
    C(MPI_Neighbor_allgather(&s, 1, MPI_INT, nb, 1, MPI_INT, line));
    out("neighbor_allgather: %d %d", nb[0], nb[1]);
    int sa[2] = {s * 10, s * 10 + 1}, ra[2] = {-1, -1};
    C(MPI_Neighbor_alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, line));
    out("neighbor_alltoall: %d %d", ra[0], ra[1]);
    C(MPI_Ineighbor_allgather(&s, 1, MPI_INT, nb, 1, MPI_INT, line, &rq));
    poison(&st);
    C(MPI_Wait(&rq, &st));
    out("ineighbor_allgather: %d %d", nb[0], nb[1]);
    C(MPI_Comm_free(&line));

    void *b;
    int bs;
    C(MPI_Buffer_detach(&b, &bs));
    out("detach: same buffer %d size %d", b == (void *)bsendbuf, bs);
    return finish();
}
