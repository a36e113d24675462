/*
 * rt_more.h — slow paths the generated wrappers call for communicator ids
 * and Fortran receive statuses (rt.c); kept out of rt.h, the hot path.
 */
#ifndef ML_RT_MORE_H
#define ML_RT_MORE_H

#include <mpi.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* MPI_Comm_idup(_with_info) returned comm: its global id is the parent's
 * next creation, given to comm at its first use. */
void ml_comm_idup(MPI_Comm comm, uint16_t parent);
/* MPI_Comm_create_group (parent, tag) and MPI_Comm_create_from_group
 * (ML_COMM_NONE, hash of the string tag) returned comm. */
void ml_comm_from_group(MPI_Comm comm, uint16_t parent, MPI_Group group, uint64_t tag);
/* Fortran MPI_Recv: the status argument to pass on (ours instead of
 * MPI_STATUS_IGNORE), remembered with ierr for ml_fortran_record. */
void *ml_fstatus_pre(void *status, void *ierr);
void ml_fstatus_post(void);
uint64_t ml_str_hash(const char *s);

#pragma GCC visibility pop

#endif
