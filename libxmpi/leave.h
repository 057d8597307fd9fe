/* A removed process that MPI cannot let go before the job ends waits without CPU. Under
 * MPICH's ch3 a process's MPI_Finalize returns only once every connection to it is closed,
 * and a connection stays open while any communicator holding it is not disconnected on both
 * sides: the removal disconnects the library's own (world.c), but one the program made and
 * still holds (a duplicate of XMPI_COMM_WORLD kept over a removal) keeps the removed process
 * in MPI_Finalize until the others finalize too, polling: as much CPU as a working process.
 * Where MPI_Finalize has not returned after a moment, a thread of the library stops the
 * polling thread inside it (a signal whose handler blocks in a read of a pipe) and sleeps
 * itself on a TCP connection to rank 0, which rank 0 closes when the job ends; MPI_Finalize
 * then goes on and returns with the others'. The process says once what it still holds. */
#ifndef XMPIR_LEAVE_H
#define XMPIR_LEAVE_H

#include <stdint.h>

/* Rank 0's addresses (IPv4, network order) and the port it listens on, for the wake-up. */
#define XMPIR_LEAVE_ADDRS 8
struct xmpi_leave_addr {
    uint16_t port;            /* 0: nothing listens, a removed process cannot sleep */
    int naddr;
    uint32_t addr[XMPIR_LEAVE_ADDRS];
};

struct xmpi_leave {
    int listening;            /* rank 0: fd is its listening socket */
    int fd;
    struct xmpi_leave_addr to;   /* every process, from the removals' broadcast */
};

/* Rank 0, before the first removal: listens on an ephemeral TCP port of every address and
 * fills lv->to (port 0 when it cannot). Connections queue unaccepted: nothing reads them. */
void xmpi_leave_listen(struct xmpi_leave *lv);
/* Rank 0, at the end of the job (inside MPI_Finalize, before PMPI_Finalize): closing the
 * socket resets every queued connection and so wakes every sleeping removed process. */
void xmpi_leave_close(struct xmpi_leave *lv);
/* A removed process: finalize(), MPI's own, on this thread; when it has not returned within
 * XMPIR_LEAVE_GRACE seconds, this thread sleeps until rank 0 closes (or rank 0 is gone),
 * then finalize() goes on. Returns finalize()'s code. Without an address to be woken at, or
 * a thread, finalize() runs as MPI makes it. */
int xmpi_leave_finalize(const struct xmpi_leave *lv, int (*finalize)(void));
/* How long MPI_Finalize may poll before the process sleeps: it returns within milliseconds
 * when nothing holds the process (world.c's removal released every connection). */
#define XMPIR_LEAVE_GRACE 0.3

#endif
