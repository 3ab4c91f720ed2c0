// SPDX-License-Identifier: Apache-2.0
// The Kamino model of a gdnModel: moving bodies, each body's joints as one Kamino joint block,
// equality constraints as loop closures, joint-limit candidates; configuration validation.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kamino/dual.h"
#include "kamino/kamino.h"
#include "math/vec.h"

void gdn_kamino_settings_default(gdnKaminoSettings* s) {
    if (!s) {
        return;
    }
    memset(s, 0, sizeof(*s));
    s->backend = GDN_KAMINO_PADMM;
    s->alpha = s->beta = s->gamma = 0.01;
    s->deadzone = 1e-6;
    s->merge_distance = 1e-7;
    s->restitution = 0;
    s->max_contacts = 64;
    s->warmstart = 1;
    s->projection_iterations = 3;
    s->projection_tol = 1e-10;
    s->curvature_bias = 1;
    // PADMM's own defaults (padmm.c), one source
    gdnKaminoPadmmSettings p;
    gdn_kamino_padmm_defaults(&p);
    s->max_iterations = p.max_iterations;
    s->tol_primal = p.tol_primal;
    s->tol_dual = p.tol_dual;
    s->tol_compl = p.tol_compl;
    s->eta = p.eta;
    s->rho = p.rho;
    s->acceleration = p.acceleration;
    s->restart_factor = p.restart_factor;
    s->preconditioning = p.preconditioning;
    s->warmstart_scale = p.warmstart_scale;
    s->warmstart_scale_unilateral = p.warmstart_scale_unilateral;
    s->rho_bilateral = p.rho_bilateral;
    s->penalty_update = p.penalty_update;
    s->penalty_ratio = p.penalty_ratio;
    s->penalty_factor = p.penalty_factor;
    s->rho_min = p.rho_min;
    s->rho_max = p.rho_max;
}

// the PADMM settings of s (the backend's own struct, filled once per model)
static void padmm_settings(const gdnKaminoSettings* s, gdnKaminoPadmmSettings* p) {
    gdn_kamino_padmm_defaults(p);
    p->max_iterations = s->max_iterations;
    p->tol_primal = s->tol_primal;
    p->tol_dual = s->tol_dual;
    p->tol_compl = s->tol_compl;
    p->eta = s->eta;
    p->rho = s->rho;
    p->acceleration = s->acceleration;
    p->restart_factor = s->restart_factor;
    p->preconditioning = s->preconditioning;
    p->warmstart_scale = s->warmstart_scale;
    p->warmstart_scale_unilateral = s->warmstart_scale_unilateral;
    p->rho_bilateral = s->rho_bilateral;
    p->penalty_update = s->penalty_update;
    p->penalty_ratio = s->penalty_ratio;
    p->penalty_factor = s->penalty_factor;
    p->rho_min = s->rho_min;
    p->rho_max = s->rho_max;
}

// error message "kamino: ..." into err
static gdnStatus fail(char* err, int size, gdnStatus st, const char* fmt, ...) {
    if (err && size > 0) {
        va_list ap;
        va_start(ap, fmt);
        int k = snprintf(err, (size_t)size, "kamino: ");
        if (k >= 0 && k < size) {
            vsnprintf(err + k, (size_t)(size - k), fmt, ap);
        }
        va_end(ap);
    }
    return st;
}

// append a warning line
static void warn_add(char* warn, int size, const char* text) {
    if (!warn || size <= 0) {
        return;
    }
    size_t n = strlen(warn);
    if (n + 1 < (size_t)size) {
        snprintf(warn + n, (size_t)size - n, "%s\n", text);
    }
}

static const char* bname(const gdnModel* m, int b) {
    const char* s = gdn_id2name(m, "body", b);
    return s && s[0] ? s : "(unnamed)";
}

// Rj: columns x = unit axis, y, z completing a right-handed frame
static void axis_frame(double R[9], const double axis[3]) {
    double x[3], y[3], z[3], e[3] = {0, 0, 0};
    gdn_copy3(x, axis);
    gdn_normalize3(x);
    int k = fabs(x[0]) <= fabs(x[1]) ? (fabs(x[0]) <= fabs(x[2]) ? 0 : 2)
                                     : (fabs(x[1]) <= fabs(x[2]) ? 1 : 2);
    e[k] = 1;
    gdn_cross3(y, x, e);
    gdn_normalize3(y);
    gdn_cross3(z, x, y);
    for (int i = 0; i < 3; i++) {
        R[3 * i + 0] = x[i];
        R[3 * i + 1] = y[i];
        R[3 * i + 2] = z[i];
    }
}

static void identity3(double R[9]) {
    memset(R, 0, 9 * sizeof(double));
    R[0] = R[4] = R[8] = 1;
}

static int parallel(const double a[3], const double b[3]) {
    double c[3];
    gdn_cross3(c, a, b);
    return gdn_norm3(c) <= 1e-9 * gdn_norm3(a) * gdn_norm3(b);
}

static double det3(const double a[3], const double b[3], const double c[3]) {
    double t[3];
    gdn_cross3(t, b, c);
    return gdn_dot3(a, t);
}

static const int nrow_of_type[] = {0, 6, 5, 5, 3, 4, 4, 3, 3};

// classify the joints of moving body b into block j (GDN_OK or an error message)
static gdnStatus classify(const gdnModel* m, int b, gdnKJoint* j, char* err, int es) {
    int n = m->body_jntnum[b], a0 = m->body_jntadr[b];
    const int* t = m->jnt_type + (n > 0 ? a0 : 0);
    const double* ax0 = n > 0 ? m->jnt_axis + 3 * a0 : NULL;
    j->jnt0 = n > 0 ? a0 : -1;
    j->njnt = n;
    identity3(j->Rj);
    if (n == 0) {
        j->type = GDN_KAMINO_FIXED;
        gdn_copy3(j->anchor, m->body_ipos + 3 * b);
        return GDN_OK;
    }
    gdn_copy3(j->anchor, m->jnt_pos + 3 * a0);
    if (n == 1) {
        switch (t[0]) {
        case GDN_JNT_FREE:
            j->type = GDN_KAMINO_FREE;
            return GDN_OK;
        case GDN_JNT_BALL:
            j->type = GDN_KAMINO_SPHERICAL;
            return GDN_OK;
        case GDN_JNT_HINGE:
            j->type = GDN_KAMINO_REVOLUTE;
            axis_frame(j->Rj, ax0);
            return GDN_OK;
        case GDN_JNT_SLIDE:
            j->type = GDN_KAMINO_PRISMATIC;
            axis_frame(j->Rj, ax0);
            return GDN_OK;
        default:
            break;
        }
    }
    int nh = 0, ns = 0;
    for (int k = 0; k < n; k++) {
        nh += t[k] == GDN_JNT_HINGE;
        ns += t[k] == GDN_JNT_SLIDE;
    }
    const double* ax1 = n > 1 ? m->jnt_axis + 3 * (a0 + 1) : NULL;
    const double* ax2 = n > 2 ? m->jnt_axis + 3 * (a0 + 2) : NULL;
    int same_anchor = 1;
    for (int k = 1; k < n; k++) {
        double d[3];
        gdn_sub3(d, m->jnt_pos + 3 * (a0 + k), m->jnt_pos + 3 * a0);
        same_anchor &= gdn_norm3(d) <= 1e-10;
    }
    if (n == 2 && nh == 2) {
        if (!same_anchor || parallel(ax0, ax1)) {
            return fail(err, es, GDN_ERR_UNSUPPORTED,
                        "body '%s': two hinges need one anchor and non-parallel axes (universal)",
                        bname(m, b));
        }
        j->type = GDN_KAMINO_UNIVERSAL;
        axis_frame(j->Rj, ax0);
        gdn_copy3(j->axis2, ax1);
        gdn_normalize3(j->axis2);
        double u[3];
        gdn_copy3(u, ax0);
        gdn_normalize3(u);
        j->k12 = gdn_dot3(u, j->axis2);
        return GDN_OK;
    }
    if (n == 2 && nh == 1 && ns == 1) {
        if (!parallel(ax0, ax1)) {
            return fail(err, es, GDN_ERR_UNSUPPORTED,
                        "body '%s': a hinge and a slide need one axis (cylindrical)", bname(m, b));
        }
        j->type = GDN_KAMINO_CYLINDRICAL;
        int hinge = t[0] == GDN_JNT_HINGE ? 0 : 1;
        gdn_copy3(j->anchor, m->jnt_pos + 3 * (a0 + hinge));
        axis_frame(j->Rj, ax0);
        return GDN_OK;
    }
    if (n == 3 && ns == 3) {
        if (fabs(det3(ax0, ax1, ax2)) <= 1e-9) {
            return fail(err, es, GDN_ERR_UNSUPPORTED,
                        "body '%s': three slides need independent axes (cartesian)", bname(m, b));
        }
        j->type = GDN_KAMINO_CARTESIAN;
        return GDN_OK;
    }
    if (n == 3 && nh == 3) {
        if (!same_anchor || fabs(det3(ax0, ax1, ax2)) <= 1e-9) {
            return fail(err, es, GDN_ERR_UNSUPPORTED,
                        "body '%s': three hinges need one anchor and independent axes (gimbal)",
                        bname(m, b));
        }
        j->type = GDN_KAMINO_GIMBAL;
        return GDN_OK;
    }
    return fail(err, es, GDN_ERR_UNSUPPORTED,
                "body '%s': %d joints (%d hinge, %d slide, %d other) have no Kamino joint "
                "equivalent (hinge, slide, ball, free, fixed, universal, cylindrical, "
                "cartesian, gimbal)",
                bname(m, b), n, nh, ns, n - nh - ns);
}

static gdnStatus check_settings(const gdnKaminoSettings* s, char* err, int es) {
    if (s->backend != GDN_KAMINO_PADMM) {
        return fail(err, es, GDN_ERR_UNSUPPORTED,
                    "backend %d is not implemented (only PADMM, 0)", (int)s->backend);
    }
    const double f[] = {s->alpha, s->beta, s->gamma};
    for (int i = 0; i < 3; i++) {
        if (!(f[i] >= 0 && f[i] <= 1)) {
            return fail(err, es, GDN_ERR_ARG,
                        "recovery fractions alpha, beta, gamma must be in [0, 1]");
        }
    }
    if (!(s->deadzone >= 0 && isfinite(s->deadzone)) ||
        !(s->merge_distance >= 0 && isfinite(s->merge_distance)) ||
        !(s->restitution >= 0 && s->restitution <= 1)) {
        return fail(err, es, GDN_ERR_ARG,
                    "deadzone and merge_distance must be finite and >= 0, restitution in [0, 1]");
    }
    if (s->max_contacts < 0 || s->max_contacts > 4096 || s->max_iterations < 1) {
        return fail(err, es, GDN_ERR_ARG, "max_contacts in [0, 4096], max_iterations >= 1");
    }
    if (s->projection_iterations < 0 || s->projection_iterations > 100 ||
        !(s->projection_tol > 0) || !isfinite(s->projection_tol) ||
        (s->curvature_bias != 0 && s->curvature_bias != 1)) {
        return fail(err, es, GDN_ERR_ARG,
                    "projection_iterations in [0, 100], projection_tol finite and > 0, "
                    "curvature_bias 0 or 1");
    }
    if (!(s->tol_primal >= 0 && s->tol_dual >= 0 && s->tol_compl >= 0 && s->eta > 0 &&
          s->rho > 0 && s->restart_factor > 0 && s->restart_factor <= 1 &&
          s->warmstart_scale >= 0 && s->warmstart_scale_unilateral >= 0 &&
          s->warmstart_scale_unilateral <= 1 &&
          s->warmstart_scale <= 1 && isfinite(s->eta) && isfinite(s->rho))) {
        return fail(err, es, GDN_ERR_ARG, "PADMM settings out of range (tolerances >= 0, "
                                          "eta, rho > 0, restart_factor in (0, 1], "
                                          "warmstart_scale and warmstart_scale_unilateral in [0, 1])");
    }
    if (!(s->rho_bilateral >= 0) || !isfinite(s->rho_bilateral)) {
        return fail(err, es, GDN_ERR_ARG, "rho_bilateral must be finite and >= 0");
    }
    if (s->penalty_update &&
        (!(s->penalty_ratio >= 1) || !isfinite(s->penalty_ratio) || !(s->penalty_factor > 1) ||
         !isfinite(s->penalty_factor) || !(s->rho_min > 0) || !(s->rho_min <= s->rho) ||
         !(s->rho <= s->rho_max) || !isfinite(s->rho_max))) {
        return fail(err, es, GDN_ERR_ARG,
                    "penalty update: penalty_ratio >= 1, penalty_factor > 1, "
                    "0 < rho_min <= rho <= rho_max (finite)");
    }
    return GDN_OK;
}


gdnStatus gdn_kamino_model_create(const gdnModel* m, const gdnKaminoSettings* settings,
                                  gdnKaminoModel** out, char* err, int es, char* warn, int ws) {
    if (err && es > 0) {
        err[0] = 0;
    }
    if (warn && ws > 0) {
        warn[0] = 0;
    }
    if (!m || !out) {
        return fail(err, es, GDN_ERR_ARG, "NULL argument");
    }
    *out = NULL;
    gdnKaminoSettings s;
    if (settings) {
        s = *settings;
    } else {
        gdn_kamino_settings_default(&s);
        s.restitution = m->opt.kamino_restitution;
    }
    gdnStatus st = check_settings(&s, err, es);
    if (st != GDN_OK) {
        return st;
    }
    int nb = m->nbody, neq = m->neq;
    gdnKaminoModel* km = calloc(1, sizeof(gdnKaminoModel));
    if (!km) {
        return GDN_ERR_MEMORY;
    }
    km->m = m;
    km->s = s;
    padmm_settings(&s, &km->padmm);
    km->nbody = nb;
    km->moving = calloc((size_t)nb, sizeof(int));
    km->body_joint = calloc((size_t)nb, sizeof(int));
    km->minv = calloc((size_t)nb, sizeof(double));
    km->iinv = calloc(3 * (size_t)nb, sizeof(double));
    km->irot = calloc(9 * (size_t)nb, sizeof(double));
    km->joint = calloc((size_t)(nb + neq + 1), sizeof(gdnKJoint));
    km->limit = calloc((size_t)m->njnt + 1, sizeof(gdnKLimit));
    if (!km->moving || !km->body_joint || !km->minv || !km->iinv || !km->irot || !km->joint || !km->limit) {
        gdn_kamino_model_free(km);
        return GDN_ERR_MEMORY;
    }
    // bodies: moving unless welded to the world; moving ones need mass and inertia
    km->body_joint[0] = -1;
    for (int b = 0; b < nb; b++) {
        gdn_quat2mat(km->irot + 9 * b, m->body_iquat + 4 * b);
    }
    for (int b = 1; b < nb; b++) {
        km->body_joint[b] = -1;
        km->moving[b] = m->body_weldid[b] != 0;
        if (!km->moving[b]) {
            continue;
        }
        const double* I = m->body_inertia + 3 * b;
        if (!(m->body_mass[b] > 1e-12) || !(I[0] > 1e-15) || !(I[1] > 1e-15) ||
            !(I[2] > 1e-15)) {
            gdn_kamino_model_free(km);
            return fail(err, es, GDN_ERR_MODEL,
                        "body '%s' (%d) is massless or has a zero principal inertia but is not "
                        "welded to the world (maximal coordinates need M invertible)",
                        bname(m, b), b);
        }
        km->minv[b] = 1 / m->body_mass[b];
        for (int k = 0; k < 3; k++) {
            km->iinv[3 * b + k] = 1 / I[k];
        }
    }
    // joint blocks of the moving bodies, in body order
    int row = 0;
    for (int b = 1; b < nb; b++) {
        if (!km->moving[b]) {
            continue;
        }
        gdnKJoint* j = km->joint + km->njoint;
        j->body = b;
        j->base = m->body_parentid[b];
        j->eq = -1;
        gdn_copy3(j->p0, m->body_pos + 3 * b);
        gdn_quat2mat(j->R0, m->body_quat + 4 * b);
        st = classify(m, b, j, err, es);
        if (st != GDN_OK) {
            gdn_kamino_model_free(km);
            return st;
        }
        if (j->type == GDN_KAMINO_FREE && km->moving[j->base]) {
            gdn_kamino_model_free(km);
            return fail(err, es, GDN_ERR_MODEL, "body '%s': a free joint below a moving body",
                        bname(m, b));
        }
        j->row0 = row;
        j->nrow = nrow_of_type[j->type];
        row += j->nrow;
        km->body_joint[b] = km->njoint;
        // limits: a single hinge or slide only
        for (int k = 0; k < j->njnt; k++) {
            int jn = j->jnt0 + k;
            if (!m->jnt_limited[jn]) {
                continue;
            }
            if (j->type != GDN_KAMINO_REVOLUTE && j->type != GDN_KAMINO_PRISMATIC) {
                gdn_kamino_model_free(km);
                return fail(err, es, GDN_ERR_UNSUPPORTED,
                            "body '%s': joint limits are supported on a lone hinge or slide "
                            "only (not on ball, free or composite joints)",
                            bname(m, b));
            }
            gdnKLimit* L = km->limit + km->nlimit++;
            L->joint = km->njoint;
            L->jnt = jn;
            L->lo = m->jnt_range[2 * jn];
            L->hi = m->jnt_range[2 * jn + 1];
        }
        km->njoint++;
    }
    km->njointrow = row;
    // loop closures: equality connect and weld between body1 (follower) and body2 (base)
    for (int e = 0; e < neq; e++) {
        if (!m->eq_active[e]) {
            continue;
        }
        int type = m->eq_type[e], b1 = m->eq_obj1id[e], b2 = m->eq_obj2id[e];
        if (type != 0 && type != 1) {
            gdn_kamino_model_free(km);
            return fail(err, es, GDN_ERR_UNSUPPORTED,
                        "equality %d: only connect and weld close loops", e);
        }
        if (!km->moving[b1] && !km->moving[b2]) {
            continue; // between static bodies: nothing to enforce
        }
        gdnKJoint* j = km->joint + km->njoint;
        const double* data = m->eq_data + GDN_NEQDATA * e;
        j->type = type == 0 ? GDN_KJ_CONNECT : GDN_KJ_WELD;
        j->body = b1;
        j->base = b2;
        j->eq = e;
        j->jnt0 = -1;
        if (type == 0) {
            gdn_copy3(j->anchor, data);
            gdn_copy3(j->anchorB, data + 3);
            j->nrow = 3;
        } else {
            gdn_copy3(j->anchor, data + 3);
            gdn_copy3(j->anchorB, data);
            double q[4] = {data[6], data[7], data[8], data[9]};
            gdn_normalize4(q);
            gdn_quat2mat(j->Rj, q); // relpose: R_1 Rj = R_2 when satisfied
            j->nrow = 6;
        }
        j->row0 = row;
        row += j->nrow;
        km->njoint++;
    }
    km->nbilateral = row;
    // the constant parts of the joint blocks' base frames (rows.c: A = RB R0Rj, pB = xB + RB
    // anchor0)
    for (int i = 0; i < km->njoint; i++) {
        gdnKJoint* j = km->joint + i;
        if (j->type == GDN_KJ_CONNECT || j->type == GDN_KJ_WELD) {
            continue;
        }
        gdn_mulmatmat3(j->R0Rj, j->R0, j->Rj);
        gdn_mulmat3(j->anchor0, j->R0, j->anchor);
        gdn_add3(j->anchor0, j->anchor0, j->p0);
    }
    // collision view: margins + dead zone
    km->margin = calloc((size_t)(m->ngeom + m->npair) + 1, sizeof(double));
    if (!km->margin) {
        gdn_kamino_model_free(km);
        return GDN_ERR_MEMORY;
    }
    km->mc = *m;
    // box-box prefers a face to an edge pair unless the edge is deeper by 1e-9 m (docs/kamino.md:
    // with MuJoCo's relative rule alone, round-off picks an edge on aligned boxes in shallow
    // contact, and one edge point for a face's four tips a pinched box for a step)
    km->mc.opt.box_edge_bias = 1e-9;
    for (int g = 0; g < m->ngeom; g++) {
        km->margin[g] = m->geom_margin[g] + s.deadzone;
    }
    for (int p = 0; p < m->npair; p++) {
        km->margin[m->ngeom + p] = m->pair_margin[p] + s.deadzone;
    }
    km->mc.geom_margin = km->margin;
    km->mc.pair_margin = km->margin + m->ngeom;
    km->collides = m->npair > 0;
    for (int g1 = 0; g1 < m->ngeom && !km->collides; g1++) {
        for (int g2 = g1 + 1; g2 < m->ngeom; g2++) {
            if (m->geom_bodyid[g1] != m->geom_bodyid[g2] &&
                ((m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
                 (m->geom_contype[g2] & m->geom_conaffinity[g1]))) {
                km->collides = 1;
                break;
            }
        }
    }
    km->maxrow = row + km->nlimit + 3 * s.max_contacts;
    // actuators: joint motors of lone hinges / slides
    for (int a = 0; a < m->nu; a++) {
        int jn = m->actuator_trnid[2 * a];
        int ok = m->actuator_trntype[a] == GDN_TRN_JOINT && m->actuator_dyntype[a] == 0 &&
                 jn >= 0 && jn < m->njnt;
        if (ok) {
            int jb = km->body_joint[m->jnt_bodyid[jn]];
            ok = jb >= 0 && (km->joint[jb].type == GDN_KAMINO_REVOLUTE ||
                             km->joint[jb].type == GDN_KAMINO_PRISMATIC);
        }
        if (!ok) {
            gdn_kamino_model_free(km);
            return fail(err, es, GDN_ERR_UNSUPPORTED,
                        "actuator %d: only joint actuators on a lone hinge or slide", a);
        }
    }
    // mocap bodies move by the user's poses: Kamino's bodies are either integrated or static
    if (m->nmocap > 0) {
        gdn_kamino_model_free(km);
        return fail(err, es, GDN_ERR_UNSUPPORTED,
                    "mocap bodies: Kamino has no kinematically driven bodies yet");
    }
    // Kamino takes one semi-implicit step of its own (docs/kamino.md): the model's RK4 would be
    // replaced by different physics
    if (m->opt.integrator != GDN_INT_EULER) {
        gdn_kamino_model_free(km);
        return fail(err, es, GDN_ERR_UNSUPPORTED,
                    "integrator RK4: Kamino integrates with its own semi-implicit step; use "
                    "integrator=\"Euler\" or MuJoCo's formulation");
    }
    // what Kamino does not model (yet): warnings
    int arm = 0, damp = 0, stiff = 0, fl = 0;
    for (int i = 0; i < m->nv; i++) {
        arm |= m->dof_armature[i] != 0;
        damp |= m->dof_damping[i] != 0;
        fl |= m->dof_frictionloss[i] != 0;
    }
    for (int i = 0; i < m->njnt; i++) {
        stiff |= m->jnt_stiffness[i] != 0;
    }
    if (arm) {
        warn_add(warn, ws, "kamino: joint armature ignored");
    }
    if (damp) {
        warn_add(warn, ws, "kamino: joint damping ignored");
    }
    if (stiff) {
        warn_add(warn, ws, "kamino: joint stiffness ignored");
    }
    if (fl) {
        warn_add(warn, ws, "kamino: joint friction loss ignored");
    }
    if (m->neq > 0 || km->nlimit > 0) {
        warn_add(warn, ws, "kamino: solref / solimp ignored (hard rows)");
    }
    *out = km;
    return GDN_OK;
}

void gdn_kamino_model_free(gdnKaminoModel* km) {
    if (!km) {
        return;
    }
    free(km->moving);
    free(km->body_joint);
    free(km->minv);
    free(km->iinv);
    free(km->irot);
    free(km->joint);
    free(km->limit);
    free(km->margin);
    free(km);
}

int gdn_kamino_model_nbody(const gdnKaminoModel* km) {
    return km ? km->nbody : 0;
}

int gdn_kamino_body_joint(const gdnKaminoModel* km, int body) {
    if (!km || body < 0 || body >= km->nbody || km->body_joint[body] < 0) {
        return -1;
    }
    return km->joint[km->body_joint[body]].type;
}

const gdnKaminoSettings* gdn_kamino_model_settings(const gdnKaminoModel* km) {
    return km ? &km->s : NULL;
}

int gdn_kamino_model_nbilateral(const gdnKaminoModel* km) {
    return km ? km->nbilateral : 0;
}
