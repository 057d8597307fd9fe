/* CRC-32 of zlib and gzip (polynomial 0xEDB88320, reflected): the checksum of every checkpoint
 * file. Same values whichever implementation computes it, so checkpoints stay readable across
 * builds, and pieces combine with zlib's crc32_combine. */
#ifndef XMPIR_CRC_H
#define XMPIR_CRC_H

#include <stddef.h>

/* The CRC of len bytes at buf continuing crc (0 to start), as zlib's crc32(crc, buf, len). */
unsigned long xmpi_crc32(unsigned long crc, const void *buf, size_t len);

#endif
