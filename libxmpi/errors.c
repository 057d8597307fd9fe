/* XMPI_Error_string: the sentence for each XMPI return code, and xmpi_error_code: the one
 * place where the internal codes (io/status.h) become XMPI_ codes. Kept apart so that every
 * module can report errors without pulling in MPI state. */
#include "errors.h"

#include "xmpi.h"

static const char *const messages[XMPI_ERR_LAST] = {
    [XMPI_SUCCESS] = "success",
    [XMPI_ERR_ARG] = "invalid argument (NULL, out of range or inconsistent between processes)",
    [XMPI_ERR_STATE] = "called at the wrong moment (before MPI_Init, after MPI_Finalize, or out of order)",
    [XMPI_ERR_NOMEM] = "out of memory",
    [XMPI_ERR_MPI] = "an MPI call made by libxmpi failed",
    [XMPI_ERR_PAPI] = "PAPI could not count the requested events",
    [XMPI_ERR_NOT_FOUND] = "the program to spawn does not exist or is not executable",
    [XMPI_ERR_CLASS] = "the node class is not in the resource pool",
    [XMPI_ERR_RESOURCES] = "not enough free PEs of the class, or fewer removable processes than asked",
    [XMPI_ERR_SPAWN] = "MPI_Comm_spawn failed to start the processes",
    [XMPI_ERR_RMS] = "the resource manager's file could not be read or written, or it did "
                     "not make room for a spawn",
    [XMPI_ERR_CHECKPOINT] = "a checkpoint could not be written, or the one to restart from is missing, "
                            "damaged or does not match the registered structures",
};

const char *XMPI_Error_string(int code)
{
    if (code < 0 || code >= XMPI_ERR_LAST) return "unknown XMPI error code";
    return messages[code];
}

int xmpi_error_code(int status)
{
    if (status >= 0) return status < XMPI_ERR_LAST ? status : XMPI_ERR_ARG;
    switch (status) {
    case XMPIR_EEMPTY:      /* the header: "XMPI_ERR_STATE when nothing is registered" */
    case XMPIR_ESTATE:
    case XMPIR_ENODATA: return XMPI_ERR_STATE;
    case XMPIR_ENOMEM: return XMPI_ERR_NOMEM;
    case XMPIR_ECLASS: return XMPI_ERR_CLASS;
    case XMPIR_ENOPE:
    case XMPIR_ECOUNT:
    case XMPIR_EGROUP: return XMPI_ERR_RESOURCES;
    default: return XMPI_ERR_ARG;   /* EARG, EINIT, ESOLVER: the input could not be served */
    }
}
