/*
 * anneal.h - the annealing state (anneal.c), used by the packer (packer.h).
 */
#ifndef UVNEST_ANNEAL_H
#define UVNEST_ANNEAL_H

#include "engine.h"

typedef struct {
    double    T, T0, alpha;   /* temperature, its reheat value, cooling per move */
    double    cost;           /* waste of the current (accepted) decode */
    double   *step;           /* 3 per island: adaptive step of theta, r, f */
    un_place *save;           /* placements saved before a move */
    int64_t   moves, accepted;
    int64_t   theta[UN_THETA_KINDS][UN_THETA_COUNTS];   /* rotation moves by kind (uvnest.h) */
} un_anneal;

un_status un_anneal_init(un_anneal *A, int32_t n);
void      un_anneal_free(un_anneal *A);
/* One move at the engine's current scale; *complete when the accepted
 * decode places every island at full size. */
un_status un_anneal_move(un_engine *E, un_anneal *A, un_rng *g, int *complete);
void      un_anneal_reheat(un_anneal *A);

#endif /* UVNEST_ANNEAL_H */
