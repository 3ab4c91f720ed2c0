// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the box pair derivatives: input directions, point motion, margin, matching,
// the adjoint of a linear pair tangent by its columns, and the pairs' tangent / adjoint entry
// points with their dispatch table.
#include <math.h>
#include <string.h>

#include "collision/box_derivative.h"
#include "collision/narrowphase.h"
#include "math/vec.h"

void gdn_box_dir_set(gdnBoxDir* dir, const double x1[6], const double x2[6],
                     const double dsize1[3], const double dsize2[3]) {
    memset(dir, 0, sizeof(*dir));
    if (x1) {
        memcpy(dir->x1, x1, sizeof(dir->x1));
    }
    if (x2) {
        memcpy(dir->x2, x2, sizeof(dir->x2));
    }
    if (dsize1) {
        memcpy(dir->ds1, dsize1, sizeof(dir->ds1));
    }
    if (dsize2) {
        memcpy(dir->ds2, dsize2, sizeof(dir->ds2));
    }
}

// dp = w x p + v
void gdn_box_point_motion(double dp[3], const double x[6], const double p[3]) {
    gdn_cross3(dp, x, p);
    dp[0] += x[3];
    dp[1] += x[4];
    dp[2] += x[5];
}

gdnStatus gdn_box_check(const gdnModel* m, const gdnData* d, const gdnContact* con,
                        gdnCollideFn fn) {
    if (!m || !d || !con || con->geom1 < 0 || con->geom2 < 0 || con->geom1 >= m->ngeom ||
        con->geom2 >= m->ngeom) {
        return GDN_ERR_ARG;
    }
    int t1 = m->geom_type[con->geom1], t2 = m->geom_type[con->geom2];
    return gdn_collide_function(t1, t2) == fn ? GDN_OK : GDN_ERR_ARG;
}

// the driver's margin: override, else an explicit pair of these geoms, else the larger one
double gdn_box_pair_margin(const gdnModel* m, int g1, int g2) {
    if (m->opt.enableflags & GDN_ENBL_OVERRIDE) {
        return m->opt.o_margin;
    }
    const int npair = m->opt.collision == GDN_COL_DYNAMIC ? 0 : m->npair; // "dynamic": none
    for (int k = 0; k < npair; k++) {
        if ((m->pair_geom1[k] == g1 && m->pair_geom2[k] == g2) ||
            (m->pair_geom1[k] == g2 && m->pair_geom2[k] == g1)) {
            return m->pair_margin[k];
        }
    }
    double a = m->geom_margin[g1], b = m->geom_margin[g2];
    return a < b ? b : a;
}

// max(|dist - con.dist|, |pos - con.pos|_inf)
double gdn_box_match_score(const gdnContact* con, double dist, const double pos[3]) {
    double s = fabs(dist - con->dist);
    for (int i = 0; i < 3; i++) {
        s = fmax(s, fabs(pos[i] - con->pos[i]));
    }
    return s;
}

// 1e-9 (1 + |con.pos|_inf)
double gdn_box_match_tol(const gdnContact* con) {
    double s = fmax(fabs(con->pos[0]), fmax(fabs(con->pos[1]), fabs(con->pos[2])));
    return 1e-9 * (1 + s);
}

// <t, tbar> over the raw fields
static double pair_dot(const gdnPairTangent* a, const gdnPairTangent* b) {
    double s = a->dist * b->dist;
    for (int i = 0; i < 3; i++) {
        s += a->pos[i] * b->pos[i] + a->normal[i] * b->normal[i] + a->hint[i] * b->hint[i];
    }
    return s;
}

// column i of the 18 inputs (x1, x2, ds1, ds2) applied and dotted with tbar
gdnStatus gdn_box_adjoint_by_columns(gdnBoxEvalFn eval, const gdnModel* m, const gdnData* d,
                                     const gdnContact* con, const gdnPairTangent* tbar,
                                     double x1bar[6], double x2bar[6], double size1bar[3],
                                     double size2bar[3]) {
    // the contact is validated (and matched) even when no output is wanted
    gdnBoxDir zero;
    memset(&zero, 0, sizeof(zero));
    gdnPairTangent t0;
    int feature0;
    gdnStatus st0 = eval(m, d, con, &zero, &t0, &feature0);
    if (st0 != GDN_OK) {
        return st0;
    }
    if (!tbar) {
        return GDN_ERR_ARG;
    }
    double* outs[4] = {x1bar, x2bar, size1bar, size2bar};
    const int sizes[4] = {6, 6, 3, 3};
    double acc[4][6] = {{0}};
    for (int block = 0; block < 4; block++) {
        if (!outs[block]) {
            continue;
        }
        for (int i = 0; i < sizes[block]; i++) {
            gdnBoxDir dir;
            memset(&dir, 0, sizeof(dir));
            double* slot = block == 0 ? dir.x1 : block == 1 ? dir.x2 : block == 2 ? dir.ds1
                                                                                  : dir.ds2;
            slot[i] = 1;
            gdnPairTangent t;
            int feature;
            gdnStatus st = eval(m, d, con, &dir, &t, &feature);
            if (st != GDN_OK) {
                return st;
            }
            acc[block][i] = pair_dot(&t, tbar);
        }
    }
    // accumulate only once every column succeeded
    for (int block = 0; block < 4; block++) {
        if (outs[block]) {
            for (int i = 0; i < sizes[block]; i++) {
                outs[block][i] += acc[block][i];
            }
        }
    }
    return GDN_OK;
}

void gdn_box_keep_nearest(gdnBoxCand* best, double* best_score, const gdnContact* con,
                          const gdnBoxCand* cand) {
    double score = gdn_box_match_score(con, cand->dist, cand->pos);
    if (best->feature < 0 || score < *best_score) {
        *best = *cand;
        *best_score = score;
    }
}

gdnStatus gdn_box_finish(const gdnBoxCand* best, double best_score, const gdnContact* con,
                         gdnPairTangent* t, int* feature) {
    *feature = -1;
    memset(t, 0, sizeof(*t));
    if (best->feature < 0 || !(best_score <= gdn_box_match_tol(con))) {
        return GDN_ERR_ARG;
    }
    *feature = best->feature;
    if (best->degenerate) {
        return GDN_ERR_UNSUPPORTED;
    }
    *t = best->t;
    return GDN_OK;
}

// the pairs by their primal collision function: evaluation, tangent and adjoint
typedef struct BoxPair {
    gdnCollideFn fn;
    gdnBoxEvalFn eval;
    gdnPairTangentFn tangent;
    gdnPairAdjointFn adjoint;
} BoxPair;

// Each pair's tangent (its eval along one direction) and adjoint (the eval's columns), the
// same two bodies for every pair
#define GDN_BOX_PAIR_FUNCTIONS(name)                                                            \
    gdnStatus gdn_##name##_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,  \
                                   const double x1[6], const double x2[6],                     \
                                   const double dsize1[3], const double dsize2[3],             \
                                   gdnPairTangent* t) {                                        \
        gdnBoxDir dir;                                                                          \
        gdn_box_dir_set(&dir, x1, x2, dsize1, dsize2);                                          \
        int feature;                                                                            \
        return gdn_##name##_eval(m, d, con, &dir, t, &feature);                                 \
    }                                                                                           \
    gdnStatus gdn_##name##_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,  \
                                   const gdnPairTangent* tbar, double x1bar[6],                \
                                   double x2bar[6], double size1bar[3], double size2bar[3]) {  \
        return gdn_box_adjoint_by_columns(gdn_##name##_eval, m, d, con, tbar, x1bar, x2bar,     \
                                          size1bar, size2bar);                                  \
    }

GDN_BOX_PAIR_FUNCTIONS(plane_box)
GDN_BOX_PAIR_FUNCTIONS(sphere_box)
GDN_BOX_PAIR_FUNCTIONS(capsule_box)
GDN_BOX_PAIR_FUNCTIONS(box_box)
GDN_BOX_PAIR_FUNCTIONS(plane_mesh)
GDN_BOX_PAIR_FUNCTIONS(convex_mpr)

static const BoxPair box_pairs[] = {
    {gdn_collide_plane_box, gdn_plane_box_eval, gdn_plane_box_tangent, gdn_plane_box_adjoint},
    {gdn_collide_sphere_box, gdn_sphere_box_eval, gdn_sphere_box_tangent, gdn_sphere_box_adjoint},
    {gdn_collide_capsule_box, gdn_capsule_box_eval, gdn_capsule_box_tangent,
     gdn_capsule_box_adjoint},
    {gdn_collide_box_box, gdn_box_box_eval, gdn_box_box_tangent, gdn_box_box_adjoint},
    {gdn_collide_plane_convex, gdn_plane_mesh_eval, gdn_plane_mesh_tangent,
     gdn_plane_mesh_adjoint},
    {gdn_collide_convex, gdn_convex_mpr_eval, gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint},
};

// the pair the table gives type1, type2 (NULL: none of these)
static const BoxPair* box_pair(int type1, int type2) {
    gdnCollideFn fn = gdn_collide_function(type1, type2);
    for (size_t i = 0; i < sizeof(box_pairs) / sizeof(box_pairs[0]); i++) {
        if (fn && box_pairs[i].fn == fn) {
            return &box_pairs[i];
        }
    }
    return NULL;
}

int gdn_box_pair_feature(const gdnModel* m, const gdnData* d, const gdnContact* con) {
    int g1 = con->geom1, g2 = con->geom2;
    if (g1 < 0 || g2 < 0 || g1 >= m->ngeom || g2 >= m->ngeom) {
        return -1;
    }
    const BoxPair* pair = box_pair(m->geom_type[g1], m->geom_type[g2]);
    if (!pair) {
        return -1;
    }
    gdnBoxDir dir;
    memset(&dir, 0, sizeof(dir));
    gdnPairTangent t;
    int feature = -1;
    pair->eval(m, d, con, &dir, &t, &feature);
    return feature;
}

// by the collision function the table gives the type pair
gdnPairTangentFn gdn_box_pair_tangent_fn(int type1, int type2) {
    const BoxPair* pair = box_pair(type1, type2);
    return pair ? pair->tangent : NULL;
}

gdnPairAdjointFn gdn_box_pair_adjoint_fn(int type1, int type2) {
    const BoxPair* pair = box_pair(type1, type2);
    return pair ? pair->adjoint : NULL;
}
