/* The checkpoint manifest (docs/checkpoint.md): its text format, writer and parser, the
 * comparison with what a program registers, and --xmpi-checkpoint-every's value. Pure. */
#ifndef XMPIR_FORMATS_CHECKPOINT_H
#define XMPIR_FORMATS_CHECKPOINT_H

#include <stddef.h>
#include <stdio.h>

#define XMPIR_CKPT_VERSION 1
#define XMPIR_CKPT_MAX_STRUCTS 64
#define XMPIR_CKPT_MANIFEST "manifest"
#define XMPIR_CKPT_LATEST "LATEST"
#define XMPIR_CKPT_APP "app-data"
/* The most bytes of the program's data for joining processes (XMPI_Set_app_data). */
#define XMPIR_APP_DATA_MAX (1 << 20)
/* The longest manifest line read, its newline not counted (the longest written is about 130
 * bytes); a longer line is refused, never cut. */
#define XMPIR_CKPT_LINE_MAX 511
/* The largest manifest read (64 structures take under 25 KB); a larger one is refused. */
#define XMPIR_CKPT_MANIFEST_MAX (64 * 1024)
/* Automatic checkpoints are PREFIX + the iteration in 12 digits, so that names sort in order. */
#define XMPIR_CKPT_AUTO_PREFIX "ckpt-"

enum { XMPIR_CKPT_VECTOR = 0, XMPIR_CKPT_DENSE, XMPIR_CKPT_SPARSE };

struct xmpi_ckpt_file {
    char part[8];          /* "data"; sparse: "ia", "ja", "a" */
    long long bytes;
    unsigned long crc;     /* CRC-32 (zlib's) of the file's bytes */
    char name[32];         /* inside the checkpoint's directory */
};

struct xmpi_ckpt_struct {
    int kind;              /* XMPIR_CKPT_VECTOR, ... */
    int replicated;
    long long elsize;      /* bytes of one element */
    char type[64];         /* the MPI datatype's name, "-" when it has none */
    long long nnz;         /* sparse: global nonzeros; 0 otherwise */
    int nfiles;
    struct xmpi_ckpt_file file[3];
};

struct xmpi_ckpt_manifest {
    int version;
    char library[32];
    long long iteration;   /* monitored iterations completed: where the program resumes */
    long long interval;    /* sampling intervals completed */
    int nprocs;            /* processes that wrote it (information only) */
    long long rows;
    int n;
    struct xmpi_ckpt_struct s[XMPIR_CKPT_MAX_STRUCTS];
    /* The program's data for joining processes (XMPI_Set_app_data): the file XMPIR_CKPT_APP,
     * its bytes (0: none, and no line in the manifest) and CRC-32. */
    long long app_bytes;
    unsigned long app_crc;
};

/* Structure i's files: names, parts, and their sizes from rows, nnz and elsize (the global
 * layout: rows in global order; sparse row pointers as 64-bit global offsets, rows + 1 of
 * them). -1 when a size overflows. */
int xmpi_ckpt_layout(struct xmpi_ckpt_struct *s, int i, long long rows);

int xmpi_ckpt_write(FILE *out, const struct xmpi_ckpt_manifest *m);
/* text: the whole manifest, NUL-terminated. 0, or -1 with one message "FNAME:LINE: ...
 * expected ...", values from the text shown as xmpi_text_echo does. */
int xmpi_ckpt_parse(const char *text, const char *fname, struct xmpi_ckpt_manifest *m, char *err,
                    size_t errlen);
/* Does the checkpoint `have` hold what the program registered (`want`: rows, n and each
 * structure's kind, scheme, element size and type)? 0, or -1 with the first difference. */
int xmpi_ckpt_match(const struct xmpi_ckpt_manifest *have, const struct xmpi_ckpt_manifest *want,
                    char *err, size_t errlen);

/* --xmpi-checkpoint-every: "" (every interval end), N (iterations, >= 1) or S followed by
 * 's' (seconds, > 0). 0 with one of *iterations / *seconds set (others 0), -1 otherwise. */
int xmpi_ckpt_every(const char *v, long *iterations, double *seconds);

/* The automatic checkpoint's name for `iteration`. */
void xmpi_ckpt_auto_name(char *out, size_t len, long long iteration);
/* 1 when `name` is an automatic checkpoint's name. */
int xmpi_ckpt_is_auto(const char *name);

const char *xmpi_ckpt_kind_name(int kind);

#endif
