/* MPI scenario: a plain MPI program, linked with the library, that uses dynamic processes
 * itself (as MPICH's spawn/spaconacc does). The parent spawns one child of itself with
 * MPI_Comm_spawn, then both sides open a second connection with MPI_Open_port,
 * MPI_Comm_accept and MPI_Comm_connect. The child must get a plain MPI_Init (its own
 * MPI_COMM_WORLD of 1, MPI_Comm_get_parent giving the spawn's intercommunicator): the library
 * takes only the processes it spawned itself into a job. No XMPI_ call here.
 * usage: mpirun -np 1 plain_spawn      prints TAP lines from the parent */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define TAG 5

static void tap(int ok, const char *what)
{
    printf("%sok - %s\n", ok ? "" : "not ", what);
    fflush(stdout);
}

static void parent_side(const char *self)
{
    MPI_Comm inter, conn;
    int rc = MPI_Comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                                      &inter, MPI_ERRCODES_IGNORE);
    tap(rc == MPI_SUCCESS, "MPI_Comm_spawn of a plain child returns");
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    tap(remote == 1, "the spawn's intercommunicator has the child as its remote group");
    int child[3] = {0, 0, 0};   /* the child's MPI_COMM_WORLD size, whether it has a parent,
                                 * its argc after MPI_Init */
    MPI_Recv(child, 3, MPI_INT, 0, TAG, inter, MPI_STATUS_IGNORE);
    tap(child[0] == 1, "the child's MPI_COMM_WORLD is its own (size 1)");
    tap(child[1] == 1, "MPI_Comm_get_parent in the child gives the spawn's intercommunicator");
    tap(child[2] == 1, "the child's arguments are the ones it was spawned with (none)");
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, TAG, inter);
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &conn);
    int v = 0;
    MPI_Recv(&v, 1, MPI_INT, 0, TAG, conn, MPI_STATUS_IGNORE);
    tap(v == 4242, "MPI_Comm_accept/MPI_Comm_connect: a message over the new connection");
    MPI_Comm_disconnect(&conn);
    MPI_Close_port(port);
    MPI_Comm_disconnect(&inter);
}

static void child_side(MPI_Comm parent, int argc)
{
    int info[3] = {0, 1, argc};
    MPI_Comm_size(MPI_COMM_WORLD, &info[0]);
    MPI_Send(info, 3, MPI_INT, 0, TAG, parent);
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, TAG, parent, MPI_STATUS_IGNORE);
    MPI_Comm conn;
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &conn);
    int v = 4242;
    MPI_Send(&v, 1, MPI_INT, 0, TAG, conn);
    MPI_Comm_disconnect(&conn);
    MPI_Comm_disconnect(&parent);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) parent_side(argv[0]);
    else child_side(parent, argc);
    MPI_Finalize();
    return 0;
}
