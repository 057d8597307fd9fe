/* The interval pipeline: the end of each sampling interval as one function that runs
 * measure -> model -> decide -> act -> checkpoint -> record (calls.c drives it). */
#ifndef XMPIR_PIPELINE_H
#define XMPIR_PIPELINE_H

#include "balance.h"

struct xmpi_ctx;

/* Collective over XMPI_COMM_WORLD, at the end of an interval that is due: gathers the
 * summary, feeds the model, asks the decision (the balancer, when the program evaluates:
 * app non-NULL), carries it out and records the interval. An XMPI code. */
int xmpi_pipeline_interval_end(struct xmpi_ctx *cx, const struct xmpi_app *app);
/* An interval still due (the program did not evaluate it) is measured and recorded now, before
 * anything else changes; collective. */
void xmpi_pipeline_catch_up(struct xmpi_ctx *cx);
/* Inside MPI_Finalize: the interval still due and a last, partial one (collective). */
void xmpi_pipeline_finish(struct xmpi_ctx *cx);

#endif
