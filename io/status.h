/* The one internal error convention: 0 for success, a negative XMPIR_E* for a failure, the
 * same numbers in every layer (the models', the policies' and the runtime's executors' codes
 * are these under their modules' names). The runtime turns them into the public XMPI_ codes in
 * one place, xmpi_error_code (libxmpi/errors.c). */
#ifndef XMPIR_IO_STATUS_H
#define XMPIR_IO_STATUS_H

enum xmpi_status {
    XMPIR_OK = 0,
    XMPIR_EEMPTY = -1,      /* nothing registered anywhere (a move has nothing to move) */
    XMPIR_EARG = -2,        /* an argument is invalid: NULL, out of range, not finite, ... */
    XMPIR_ENOMEM = -3,
    XMPIR_ESTATE = -4,      /* wrong moment: the model has not observed what it is asked about */
    XMPIR_ENODATA = -5,     /* nothing measured yet to predict from (no power, no work) */
    XMPIR_ECLASS = -6,      /* a node class the pool does not have */
    XMPIR_ENOPE = -7,       /* no free PE of the class (and no oversubscription) */
    XMPIR_ECOUNT = -8,      /* fewer processes than asked can be removed, or n < 1 */
    XMPIR_EGROUP = -9,      /* a removal would split a group spawned together */
    XMPIR_EINIT = -10,      /* a bad initial placement (a host not in the pool) */
    XMPIR_ESOLVER = -11,    /* GLPK failed in a way the input does not explain */
    XMPIR_ELAST = -12       /* one past the last; not returned */
};

#endif
