/* CRC-32 (crc.h): Intel ISA-L's crc32_gzip_refl where the build found it (carry-less multiply
 * folding, about 20 GB/s), else zlib's crc32 (about 2.4 GB/s): at zlib's speed the checksum
 * alone cost a checkpoint a third of its time (make bench-cr measures both). */
#include "crc.h"

#include <stdint.h>
#include <zlib.h>
#ifdef XMPI_HAVE_ISAL
#include <isa-l/crc.h>
#endif

unsigned long xmpi_crc32(unsigned long crc, const void *buf, size_t len)
{
    if (len == 0) return crc;   /* buf may be NULL (a process that owns no rows) */
#ifdef XMPI_HAVE_ISAL
    /* crc32_gzip_refl takes and returns the finished CRC, as zlib does. */
    return crc32_gzip_refl((uint32_t)crc, buf, (uint64_t)len);
#else
    const unsigned char *p = buf;
    while (len > 0) {
        uInt k = len > (1u << 30) ? (1u << 30) : (uInt)len;
        crc = crc32(crc, p, k);
        p += k;
        len -= k;
    }
    return crc;
#endif
}
