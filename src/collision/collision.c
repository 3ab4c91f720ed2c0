// SPDX-License-Identifier: Apache-2.0
// Collision driver (MuJoCo 2.2.2's mj_collision): body pairs, filters, parameter mixing, buffer.
#include <math.h>
#include <string.h>

#include "collision/collision.h"

#include "base/arena.h"
#include "collision/broadphase.h"
#include "collision/narrowphase.h"
#include "math/vec.h"
#include "model/validate.h"

// 1 when the geoms' contype / conaffinity are incompatible (the geom part of MuJoCo's
// mj_contactFilter)
static inline int types_filtered(const gdnModel* m, int g1, int g2) {
    return !(m->geom_contype[g1] & m->geom_conaffinity[g2]) &&
           !(m->geom_contype[g2] & m->geom_conaffinity[g1]);
}

// 1 when every geom pair of bodies b1, b2 is filtered out (the body part of MuJoCo's
// mj_contactFilter): the same weld body, or (filterparent) one weld body the parent of the
// other's
static int bodies_filtered(const gdnModel* m, int b1, int b2) {
    int weld1 = m->body_weldid[b1];
    int weld2 = m->body_weldid[b2];
    if (weld1 == weld2) {
        return 1;
    }
    int filterparent = !(m->opt.disableflags & GDN_DSBL_FILTERPARENT) && weld1 && weld2;
    int parent1 = m->body_weldid[m->body_parentid[weld1]];
    int parent2 = m->body_weldid[m->body_parentid[weld2]];
    return filterparent && (weld1 == parent2 || weld2 == parent1);
}

// height of geom g's centre above plane p: n_p . (x_g - x_p)
static double plane_height(const gdnData* d, int p, int g) {
    const double* mat = d->geom_xmat + 9 * p;
    double n[3] = {mat[2], mat[5], mat[8]}, dif[3];
    gdn_sub3(dif, d->geom_xpos + 3 * g, d->geom_xpos + 3 * p);
    return gdn_dot3(dif, n);
}

// 1 when the bounding spheres (or a plane and a bounding sphere) are farther apart than margin
static inline int bounds_apart(const gdnModel* m, const gdnData* d, int g1, int g2,
                               double margin) {
    double r1 = m->geom_rbound[g1], r2 = m->geom_rbound[g2];
    if (r1 > 0 && r2 > 0) {
        double dif[3];
        gdn_sub3(dif, d->geom_xpos + 3 * g1, d->geom_xpos + 3 * g2);
        if (gdn_norm3(dif) > r1 + r2 + margin) {
            return 1;
        }
    }
    if (m->geom_type[g1] == GDN_GEOM_PLANE && r2 > 0 && plane_height(d, g1, g2) > margin + r2) {
        return 1;
    }
    if (m->geom_type[g2] == GDN_GEOM_PLANE && r1 > 0 && plane_height(d, g2, g1) > margin + r1) {
        return 1;
    }
    return 0;
}

// contact parameters shared by the contacts of one geom pair
typedef struct {
    int dim;
    double margin, gap;
    double friction[5];
    double solref[GDN_NREF];
    double solimp[GDN_NIMP];
} PairParams;

// parameters of a dynamic geom pair (MuJoCo's mj_collideGeoms mixing). margin, gap: max.
// Different geom_priority: condim, friction, solref, solimp of the higher-priority geom.
// Equal priorities: condim, friction: max;  mix = s1 / (s1 + s2) of the solmix weights (0.5
//   when both < MINVAL, 0 or 1 when one is);  solref = mix r1 + (1 - mix) r2 when both r[0] > 0
//   (stiffness/damping form), else elementwise min (direct form);  solimp = mix i1 + (1-mix) i2
static void geom_params(const gdnModel* m, int g1, int g2, PairParams* p) {
    p->margin = fmax(m->geom_margin[g1], m->geom_margin[g2]);
    p->gap = fmax(m->geom_gap[g1], m->geom_gap[g2]);
    if (m->geom_priority[g1] != m->geom_priority[g2]) {
        int gp = m->geom_priority[g1] > m->geom_priority[g2] ? g1 : g2;
        p->dim = m->geom_condim[gp];
        for (int i = 0; i < 3; i++) {
            p->friction[2 * i] = m->geom_friction[3 * gp + i];
        }
        p->friction[1] = p->friction[0];
        p->friction[3] = p->friction[4];
        memcpy(p->solref, m->geom_solref + GDN_NREF * gp, sizeof(p->solref));
        memcpy(p->solimp, m->geom_solimp + GDN_NIMP * gp, sizeof(p->solimp));
        return;
    }
    p->dim = m->geom_condim[g1] > m->geom_condim[g2] ? m->geom_condim[g1] : m->geom_condim[g2];
    for (int i = 0; i < 3; i++) {
        p->friction[2 * i] = fmax(m->geom_friction[3 * g1 + i], m->geom_friction[3 * g2 + i]);
    }
    p->friction[1] = p->friction[0];
    p->friction[3] = p->friction[4];

    double s1 = m->geom_solmix[g1], s2 = m->geom_solmix[g2], mix;
    if (s1 >= GDN_MINVAL && s2 >= GDN_MINVAL) {
        mix = s1 / (s1 + s2);
    } else if (s1 < GDN_MINVAL && s2 < GDN_MINVAL) {
        mix = 0.5;
    } else {
        mix = s1 < GDN_MINVAL ? 0.0 : 1.0;
    }
    const double* ref1 = m->geom_solref + GDN_NREF * g1;
    const double* ref2 = m->geom_solref + GDN_NREF * g2;
    for (int i = 0; i < GDN_NREF; i++) {
        if (ref1[0] > 0 && ref2[0] > 0) {
            p->solref[i] = mix * ref1[i] + (1 - mix) * ref2[i];
        } else {
            p->solref[i] = fmin(ref1[i], ref2[i]);
        }
    }
    const double* imp1 = m->geom_solimp + GDN_NIMP * g1;
    const double* imp2 = m->geom_solimp + GDN_NIMP * g2;
    for (int i = 0; i < GDN_NIMP; i++) {
        p->solimp[i] = mix * imp1[i];
        p->solimp[i] += (1 - mix) * imp2[i];
    }
}

// parameters of an explicit pair: its own
static void pair_params(const gdnModel* m, int ipair, PairParams* p) {
    p->dim = m->pair_dim[ipair];
    p->margin = m->pair_margin[ipair];
    p->gap = m->pair_gap[ipair];
    memcpy(p->friction, m->pair_friction + 5 * ipair, sizeof(p->friction));
    memcpy(p->solref, m->pair_solref + GDN_NREF * ipair, sizeof(p->solref));
    memcpy(p->solimp, m->pair_solimp + GDN_NIMP * ipair, sizeof(p->solimp));
}

// append one contact, or count it as overflow when the buffer is full
static void add_contact(gdnData* d, const gdnContact* con) {
    if (d->ncon < d->maxcon) {
        d->contact[d->ncon++] = *con;
    } else {
        d->ncon_overflow++;
    }
}

// collide geoms g1, g2 (ipair < 0: a dynamic pair that passed the filters, geom-mixed
// parameters; else the explicit pair ipair, whose geoms are g1, g2) and append the contacts
static void collide_geoms(const gdnModel* m, gdnData* d, int g1, int g2, int ipair) {
    // the margin and the bounding test first (both symmetric in g1, g2: most pairs end here;
    // the max of the geoms' margins without a libm call); the other parameters only for a pair
    // that touches
    const int override = (m->opt.enableflags & GDN_ENBL_OVERRIDE) != 0;
    double margin1 = m->geom_margin[g1], margin2 = m->geom_margin[g2];
    double margin = override          ? m->opt.o_margin
                    : ipair < 0       ? (margin1 < margin2 ? margin2 : margin1)
                                      : m->pair_margin[ipair];
    if (bounds_apart(m, d, g1, g2, margin)) {
        return;
    }
    // order by type, as the table wants
    if (m->geom_type[g1] > m->geom_type[g2]) {
        int t = g1;
        g1 = g2;
        g2 = t;
    }
    gdnCollideFn collide = gdn_collide_function(m->geom_type[g1], m->geom_type[g2]);
    if (!collide) {
        return;
    }

    gdnContact con[GDN_MAXCONPAIR];
    int num = collide(m, d, con, g1, g2, margin);
    if (num <= 0) {
        return;
    }
    PairParams p;
    if (ipair < 0) {
        geom_params(m, g1, g2, &p);
    } else {
        pair_params(m, ipair, &p);
    }
    if (num > GDN_MAXCONPAIR) {
        num = GDN_MAXCONPAIR; // a collision function broke its contract: keep what fits
    }

    // box-box: drop a contact whose position repeats exactly in a later one
    if (m->geom_type[g1] == GDN_GEOM_BOX && m->geom_type[g2] == GDN_GEOM_BOX) {
        int kept = 0;
        for (int i = 0; i < num; i++) {
            int repeated = 0;
            for (int j = i + 1; j < num && !repeated; j++) {
                repeated = con[i].pos[0] == con[j].pos[0] && con[i].pos[1] == con[j].pos[1] &&
                           con[i].pos[2] == con[j].pos[2];
            }
            if (!repeated) {
                con[kept++] = con[i];
            }
        }
        num = kept;
    }

    for (int i = 0; i < 5; i++) {
        p.friction[i] = fmax(GDN_MIN_MU, p.friction[i]);
    }
    const double* solref = override ? m->opt.o_solref : p.solref;
    const double* solimp = override ? m->opt.o_solimp : p.solimp;
    for (int i = 0; i < num; i++) {
        gdnContact* c = con + i;
        c->dim = p.dim;
        c->geom1 = g1;
        c->geom2 = g2;
        c->includemargin = margin - p.gap;
        memcpy(c->friction, p.friction, sizeof(c->friction));
        memcpy(c->solref, solref, sizeof(c->solref));
        memcpy(c->solimp, solimp, sizeof(c->solimp));
        c->exclude = c->dist < c->includemargin ? 0 : 1;
        gdn_make_frame(c->frame);
        c->efc_address = -1;
        c->mu = 0;
        add_contact(d, c);
    }
}

gdnStatus gdn_collision(const gdnModel* m, gdnData* d) {
    if (gdn_check_model_data(m, d) != GDN_OK) {
        return GDN_ERR_ARG;
    }
    return gdn_collision_stage(m, d);
}

gdnStatus gdn_collision_stage(const gdnModel* m, gdnData* d) {
    d->ncon = 0;
    d->ncon_overflow = 0;
    if ((m->opt.disableflags & (GDN_DSBL_CONSTRAINT | GDN_DSBL_CONTACT)) || m->nbody < 2) {
        return GDN_OK;
    }

    // the explicit pairs only (collision="predefined"): in their order, no filter
    if (m->opt.collision == GDN_COL_PAIR) {
        for (int p = 0; p < m->npair; p++) {
            collide_geoms(m, d, m->pair_geom1[p], m->pair_geom2[p], p);
        }
        return GDN_OK;
    }

    size_t mark = gdn_arena_mark(d);
    size_t maxpair = (size_t)m->nbody * (size_t)(m->nbody - 1) / 2;
    int* bodypair = gdn_arena_ints(d, maxpair);
    int nbodypair = bodypair ? gdn_broadphase(m, d, bodypair) : -1;
    if (nbodypair < 0) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }

    // body pairs in signature order; explicit pairs with a signature <= the current one come
    // first (and replace the dynamic test of their geom pair; none under collision="dynamic");
    // excluded body pairs are skipped
    const int npair = m->opt.collision == GDN_COL_DYNAMIC ? 0 : m->npair;
    int pairadr = 0, exadr = 0;
    for (int i = 0; i < nbodypair; i++) {
        int signature = bodypair[i];
        int b1 = (signature >> 16) - 1, b2 = (signature & 0xFFFF) - 1;

        int merged = 0, start = pairadr;
        while (pairadr < npair && m->pair_signature[pairadr] <= signature) {
            merged |= m->pair_signature[pairadr] == signature;
            collide_geoms(m, d, m->pair_geom1[pairadr], m->pair_geom2[pairadr], pairadr);
            pairadr++;
        }

        while (exadr < m->nexclude && m->exclude_signature[exadr] < signature) {
            exadr++;
        }
        if (exadr < m->nexclude && m->exclude_signature[exadr] == signature) {
            continue;
        }
        if (bodies_filtered(m, b1, b2)) {
            continue;
        }

        const int begin1 = m->body_geomadr[b1], end1 = begin1 + m->body_geomnum[b1];
        const int begin2 = m->body_geomadr[b2], end2 = begin2 + m->body_geomnum[b2];
        for (int g1 = begin1; g1 < end1; g1++) {
            for (int g2 = begin2; g2 < end2; g2++) {
                int explicit_pair = 0;
                for (int k = start; merged && k < pairadr && !explicit_pair; k++) {
                    explicit_pair = (m->pair_geom1[k] == g1 && m->pair_geom2[k] == g2) ||
                                    (m->pair_geom1[k] == g2 && m->pair_geom2[k] == g1);
                }
                if (!explicit_pair && !types_filtered(m, g1, g2)) {
                    collide_geoms(m, d, g1, g2, -1);
                }
            }
        }
    }

    // explicit pairs after the last body pair
    for (; pairadr < npair; pairadr++) {
        collide_geoms(m, d, m->pair_geom1[pairadr], m->pair_geom2[pairadr], pairadr);
    }
    gdn_arena_reset(d, mark);
    return GDN_OK;
}
