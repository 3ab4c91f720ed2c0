// SPDX-License-Identifier: Apache-2.0
// The contact geometry tangent: dispatch by geom type pair, then the frame completion's tangent.
#include "collision/contact_derivative.h"

#include "collision/box_derivative.h"
#include "collision/contact_derivative_pairs.h"
#include "math/vec.h"

#define NTYPES 8

// one pair's derivative: tangent, adjoint, and the primal hint when the pair writes one
typedef struct {
    gdnPairTangentFn tangent;
    gdnPairAdjointFn adjoint;
    gdnPairHintFn hint;
} PairDerivative;

// [type1][type2] with type1 <= type2, the layout of narrowphase.c's table; an empty entry is a
// pair without a derivative yet (GDN_ERR_UNSUPPORTED)
static const PairDerivative pair_table[NTYPES][NTYPES] = {
    [GDN_GEOM_PLANE] =
        {
            [GDN_GEOM_SPHERE] = {gdn_tangent_plane_sphere, gdn_adjoint_plane_sphere, NULL},
            [GDN_GEOM_CAPSULE] = {gdn_tangent_plane_capsule, gdn_adjoint_plane_capsule,
                                  gdn_hint_plane_capsule},
            [GDN_GEOM_ELLIPSOID] = {gdn_tangent_plane_ellipsoid, gdn_adjoint_plane_ellipsoid,
                                    NULL},
            [GDN_GEOM_CYLINDER] = {gdn_tangent_plane_cylinder, gdn_adjoint_plane_cylinder, NULL},
            [GDN_GEOM_BOX] = {gdn_plane_box_tangent, gdn_plane_box_adjoint, NULL},
            [GDN_GEOM_MESH] = {gdn_plane_mesh_tangent, gdn_plane_mesh_adjoint, NULL},
        },
    [GDN_GEOM_SPHERE] =
        {
            [GDN_GEOM_SPHERE] = {gdn_tangent_sphere_sphere, gdn_adjoint_sphere_sphere, NULL},
            [GDN_GEOM_CAPSULE] = {gdn_tangent_sphere_capsule, gdn_adjoint_sphere_capsule, NULL},
            [GDN_GEOM_ELLIPSOID] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_CYLINDER] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_BOX] = {gdn_sphere_box_tangent, gdn_sphere_box_adjoint, NULL},
            [GDN_GEOM_MESH] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
        },
    [GDN_GEOM_CAPSULE] =
        {
            [GDN_GEOM_CAPSULE] = {gdn_tangent_capsule_capsule, gdn_adjoint_capsule_capsule,
                                  NULL},
            [GDN_GEOM_ELLIPSOID] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_CYLINDER] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_BOX] = {gdn_capsule_box_tangent, gdn_capsule_box_adjoint, NULL},
            [GDN_GEOM_MESH] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
        },
    // MPR pairs (convex_derivative.c): polytopes (box, mesh) with their portal vertices held,
    // curved shapes and margins at the converged limit (convex_curved_derivative.c); refused
    // configurations return GDN_ERR_UNSUPPORTED from the pair function
    [GDN_GEOM_ELLIPSOID] =
        {
            [GDN_GEOM_ELLIPSOID] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_CYLINDER] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_BOX] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_MESH] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
        },
    [GDN_GEOM_CYLINDER] =
        {
            [GDN_GEOM_CYLINDER] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_BOX] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
            [GDN_GEOM_MESH] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
        },
    [GDN_GEOM_BOX] =
        {
            [GDN_GEOM_BOX] = {gdn_box_box_tangent, gdn_box_box_adjoint, NULL},
            [GDN_GEOM_MESH] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
        },
    [GDN_GEOM_MESH] =
        {
            [GDN_GEOM_MESH] = {gdn_convex_mpr_tangent, gdn_convex_mpr_adjoint, NULL},
        },
};

// the derivative entry of a contact, or the status why there is none
static gdnStatus lookup(const gdnModel* m, const gdnData* d, const gdnContact* con,
                        const PairDerivative** entry) {
    if (!m || !d || !con) {
        return GDN_ERR_ARG;
    }
    if (con->geom1 < 0 || con->geom2 < 0 || con->geom1 >= m->ngeom || con->geom2 >= m->ngeom) {
        return GDN_ERR_ARG;
    }
    int type1 = m->geom_type[con->geom1], type2 = m->geom_type[con->geom2];
    if (type1 < 0 || type2 < 0 || type1 >= NTYPES || type2 >= NTYPES) {
        return GDN_ERR_ARG;
    }
    // the driver stores the table order (collision.c): anything else was not made by it
    if (type1 > type2) {
        return GDN_ERR_ARG;
    }
    *entry = &pair_table[type1][type2];
    return (*entry)->tangent && (*entry)->adjoint ? GDN_OK : GDN_ERR_UNSUPPORTED;
}

// the vector gdn_make_frame orthogonalizes into tangent 1: the hint when |hint| >= 0.5 (then
// *held_hint = 1), else e_y, or e_z when |n_y| >= 0.5 (the same tests on the normalized n)
static void frame_seed(const double n[3], const double hint[3], double t[3], int* held_hint) {
    if (hint && gdn_norm3(hint) >= 0.5) {
        gdn_copy3(t, hint);
        *held_hint = 1;
        return;
    }
    *held_hint = 0;
    gdn_zero3(t);
    if (n[1] < 0.5 && n[1] > -0.5) {
        t[1] = 1;
    } else {
        t[2] = 1;
    }
}

void gdn_make_frame_tangent(const double frame[9], const double hint[3], const gdnPairTangent* pt,
                            gdnContactTangent* t) {
    const double* n = frame;
    const double* t1 = frame + 3;
    t->dist = pt->dist;
    gdn_copy3(t->pos, pt->pos);

    // normalization of a unit raw normal: dn = (I - n n') dn_raw
    double dn[3];
    gdn_addscl3(dn, pt->normal, n, -gdn_dot3(n, pt->normal));
    gdn_copy3(t->frame, dn);

    // t1 = unit(P s), P s = s - n (n . s), s = the seed (hint or axis, branch held):
    //   d(P s) = ds - dn (n . s) - n (dn . s + n . ds);  dt1 = (I - t1 t1') d(P s) / |P s|
    // (|P s| < MINVAL: t1 = (1, 0, 0), constant)
    double seed[3], dseed[3] = {0, 0, 0}, ps[3], dt1[3] = {0, 0, 0};
    int held_hint;
    frame_seed(n, hint, seed, &held_hint);
    if (held_hint) {
        gdn_copy3(dseed, pt->hint);
    }
    double ns = gdn_dot3(n, seed);
    gdn_addscl3(ps, seed, n, -ns);
    double len = gdn_norm3(ps);
    if (len >= GDN_MINVAL) {
        double dps[3];
        gdn_addscl3(dps, dseed, dn, -ns);
        gdn_addscl3(dps, dps, n, -(gdn_dot3(dn, seed) + gdn_dot3(n, dseed)));
        gdn_addscl3(dt1, dps, t1, -gdn_dot3(t1, dps));
        gdn_scl3(dt1, dt1, 1 / len);
    }
    gdn_copy3(t->frame + 3, dt1);

    // t2 = n x t1:  dt2 = dn x t1 + n x dt1
    double a[3], b[3];
    gdn_cross3(a, dn, t1);
    gdn_cross3(b, n, dt1);
    gdn_add3(t->frame + 6, a, b);
}

void gdn_make_frame_adjoint(const double frame[9], const double hint[3],
                            const gdnContactTangent* tbar, gdnPairTangent* ptbar) {
    const double* n = frame;
    const double* t1 = frame + 3;
    ptbar->dist = tbar->dist;
    gdn_copy3(ptbar->pos, tbar->pos);
    gdn_zero3(ptbar->hint);

    // dt2 = dn x t1 + n x dt1:  nbar += t1 x t2bar,  t1bar += t2bar x n
    double nbar[3], t1bar[3], c[3];
    gdn_cross3(c, t1, tbar->frame + 6);
    gdn_add3(nbar, tbar->frame, c);
    gdn_cross3(c, tbar->frame + 6, n);
    gdn_add3(t1bar, tbar->frame + 3, c);

    // dt1 = (I - t1 t1') d(P s) / |P s|:  g = (I - t1 t1') t1bar / |P s|; then
    //   seedbar = g - (g . n) n,  nbar += -(n . s) g - (g . n) s
    double seed[3], ps[3];
    int held_hint;
    frame_seed(n, hint, seed, &held_hint);
    double ns = gdn_dot3(n, seed);
    gdn_addscl3(ps, seed, n, -ns);
    double len = gdn_norm3(ps);
    if (len >= GDN_MINVAL) {
        double g[3];
        gdn_addscl3(g, t1bar, t1, -gdn_dot3(t1, t1bar));
        gdn_scl3(g, g, 1 / len);
        double gn = gdn_dot3(g, n);
        if (held_hint) {
            gdn_addscl3(ptbar->hint, g, n, -gn);
        }
        gdn_addscl3(nbar, nbar, g, -ns);
        gdn_addscl3(nbar, nbar, seed, -gn);
    }

    // dn = (I - n n') dn_raw:  dn_raw bar = (I - n n') nbar
    gdn_addscl3(ptbar->normal, nbar, n, -gdn_dot3(n, nbar));
}

gdnStatus gdn_contact_tangent(const gdnModel* m, const gdnData* d, const gdnContact* con,
                              const double x1[6], const double x2[6], const double dsize1[3],
                              const double dsize2[3], gdnContactTangent* t) {
    const PairDerivative* entry = NULL;
    gdnStatus status = lookup(m, d, con, &entry);
    if (status != GDN_OK) {
        return status;
    }
    if (!t) {
        return GDN_ERR_ARG;
    }
    gdnPairTangent pt;
    status = entry->tangent(m, d, con, x1, x2, dsize1, dsize2, &pt);
    if (status != GDN_OK) {
        return status;
    }
    double hint[3];
    if (entry->hint) {
        entry->hint(m, d, con, hint);
    }
    gdn_make_frame_tangent(con->frame, entry->hint ? hint : NULL, &pt, t);
    return GDN_OK;
}

gdnStatus gdn_contact_tangent_adjoint(const gdnModel* m, const gdnData* d, const gdnContact* con,
                                      const gdnContactTangent* tbar, double x1bar[6],
                                      double x2bar[6], double size1bar[3], double size2bar[3]) {
    const PairDerivative* entry = NULL;
    gdnStatus status = lookup(m, d, con, &entry);
    if (status != GDN_OK) {
        return status;
    }
    if (!tbar) {
        return GDN_ERR_ARG;
    }
    double hint[3];
    if (entry->hint) {
        entry->hint(m, d, con, hint);
    }
    gdnPairTangent ptbar;
    gdn_make_frame_adjoint(con->frame, entry->hint ? hint : NULL, tbar, &ptbar);
    return entry->adjoint(m, d, con, &ptbar, x1bar, x2bar, size1bar, size2bar);
}
