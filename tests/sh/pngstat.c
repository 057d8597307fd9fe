/* pngstat FILE.png: prints "WIDTH HEIGHT NONWHITE COLOURS SATURATED" for an 8-bit RGB or RGBA
 * PNG (what gnuplot's and Chromium's screenshots are): the pixels that are not white, the
 * distinct colours (counted up to 4096), and the pixels of a strong colour (channels more than
 * 60 apart: a plot's lines and bars, never text, which is grey). The shell tests judge with it
 * that an image is not blank and that a page shows its plots.
 * Exit status 1, with a message, for a file it cannot read. zlib only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned long be32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static int fail(const char *what)
{
    fprintf(stderr, "pngstat: %s\n", what);
    return 1;
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
    if (argc != 2) return fail("usage: pngstat FILE.png");
    FILE *f = fopen(argv[1], "rb");
    if (!f) return fail("cannot open the file");
    unsigned char sig[8];
    if (fread(sig, 1, 8, f) != 8 || memcmp(sig, "\x89PNG\r\n\x1a\n", 8)) return fail("not a PNG");
    unsigned long w = 0, h = 0;
    int bpp = 0;
    unsigned char *idat = NULL;
    size_t nidat = 0;
    for (;;) {
        unsigned char hd[8];
        if (fread(hd, 1, 8, f) != 8) return fail("cut short");
        unsigned long len = be32(hd);
        if (len > (1ul << 30)) return fail("a chunk too large");
        unsigned char *data = malloc(len + 4);
        if (!data || fread(data, 1, len + 4, f) != len + 4) return fail("cut short");
        if (!memcmp(hd + 4, "IHDR", 4)) {
            w = be32(data);
            h = be32(data + 4);
            if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
                return fail("not an 8-bit RGB or RGBA image without interlace");
            bpp = data[9] == 6 ? 4 : 3;
        } else if (!memcmp(hd + 4, "IDAT", 4)) {
            unsigned char *n = realloc(idat, nidat + len);
            if (!n) return fail("out of memory");
            idat = n;
            memcpy(idat + nidat, data, len);
            nidat += len;
        } else if (!memcmp(hd + 4, "IEND", 4)) {
            free(data);
            break;
        }
        free(data);
    }
    fclose(f);
    if (!w || !h || !bpp) return fail("no image header");
    size_t stride = w * (size_t)bpp;
    uLongf raw_len = (uLongf)(h * (stride + 1));
    unsigned char *raw = malloc(raw_len);
    if (!raw || uncompress(raw, &raw_len, idat, nidat) != Z_OK || raw_len != h * (stride + 1))
        return fail("the image data does not inflate");
    /* Undo each row's filter in place, against the row above. */
    for (unsigned long y = 0; y < h; y++) {
        unsigned char *row = raw + y * (stride + 1), *cur = row + 1;
        const unsigned char *up = y ? raw + (y - 1) * (stride + 1) + 1 : NULL;
        for (size_t i = 0; i < stride; i++) {
            int a = i >= (size_t)bpp ? cur[i - bpp] : 0, b = up ? up[i] : 0;
            int c = up && i >= (size_t)bpp ? up[i - bpp] : 0;
            switch (row[0]) {
            case 0: break;
            case 1: cur[i] = (unsigned char)(cur[i] + a); break;
            case 2: cur[i] = (unsigned char)(cur[i] + b); break;
            case 3: cur[i] = (unsigned char)(cur[i] + (a + b) / 2); break;
            case 4: cur[i] = (unsigned char)(cur[i] + paeth(a, b, c)); break;
            default: return fail("an unknown row filter");
            }
        }
    }
    /* The colours seen, in an open-addressing set (slot value colour + 1, 0 empty). */
    enum { MAXC = 4096, SLOTS = 4 * MAXC };
    static unsigned long seen[SLOTS];
    int ncol = 0;
    unsigned long nonwhite = 0, saturated = 0;
    for (unsigned long y = 0; y < h; y++)
        for (unsigned long x = 0; x < w; x++) {
            const unsigned char *p = raw + y * (stride + 1) + 1 + x * (size_t)bpp;
            unsigned long c = (unsigned long)p[0] << 16 | (unsigned long)p[1] << 8 | p[2];
            if (c != 0xffffff) nonwhite++;
            int hi = p[0] > p[1] ? p[0] : p[1], lo = p[0] < p[1] ? p[0] : p[1];
            if (p[2] > hi) hi = p[2];
            if (p[2] < lo) lo = p[2];
            if (hi - lo > 60) saturated++;
            if (ncol == MAXC) continue;
            unsigned long k = (c * 2654435761u) % SLOTS;
            while (seen[k] && seen[k] != c + 1) k = (k + 1) % SLOTS;
            if (!seen[k]) seen[k] = c + 1, ncol++;
        }
    printf("%lu %lu %lu %d %lu\n", w, h, nonwhite, ncol, saturated);
    free(raw);
    free(idat);
    return 0;
}
