# The communicators a program makes get the same handles (Open MPI; MPICH:
# results only) with and without the runtime (tests/programs/sem_commids.c: dup, split, create, Cart_create,
# Dist_graph_create with reorder where rank 0 gives the whole graph, frees
# between), both MPIs, 2 and 4 ranks.  The runtime once kept a duplicate of
# MPI_COMM_WORLD and one of MPI_COMM_SELF from MPI_Init on, which shifted
# Open MPI's handles and context ids (lowest free) of every communicator the
# program made (issue 12, item 10).
same_everywhere sem_commids
