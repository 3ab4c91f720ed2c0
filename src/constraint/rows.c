// SPDX-License-Identifier: Apache-2.0
// The constraint rows (MuJoCo 2.2.2's mj_makeConstraint): driver, row storage, dof and tendon
// friction, joint and tendon limits, diagApprox, and the row-space products the solvers use.
#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "constraint/constraint.h"
#include "constraint/rows.h"
#include "math/vec.h"

// MuJoCo's mjPI
static const double kPi = 3.14159265358979323846;

static int is_contact_type(int type) {
    return type == GDN_CNSTR_CONTACT_FRICTIONLESS || type == GDN_CNSTR_CONTACT_PYRAMIDAL ||
           type == GDN_CNSTR_CONTACT_ELLIPTIC;
}

int gdn_rows_add(const gdnModel* m, gdnData* d, const double* jac, const double* pos,
                 const double* margin, double frictionloss, int size, int type, int id) {
    return gdn_rows_add_sparse(m, d, jac, NULL, 0, pos, margin, frictionloss, size, type, id);
}

// the sparsity of rows nefc .. nefc + size - 1: the given columns, or (cols NULL) the columns
// where any of the size rows of jac is nonzero; rows are packed one after the other in colind
static void record_sparsity(const gdnModel* m, gdnData* d, const double* jac, const int* cols,
                            int ncol, int size) {
    const int nv = m->nv, nefc = d->nefc;
    int adr = nefc > 0 ? d->efc_rowadr[nefc - 1] + d->efc_rownnz[nefc - 1] : 0;
    int* first = d->efc_colind + adr;
    if (!cols) {
        ncol = 0;
        for (int k = 0; k < nv; k++) {
            int nonzero = 0;
            for (int r = 0; r < size && !nonzero; r++) {
                nonzero = jac[(size_t)r * (size_t)nv + (size_t)k] != 0;
            }
            if (nonzero) {
                first[ncol++] = k;
            }
        }
    } else {
        memcpy(first, cols, sizeof(int) * (size_t)ncol);
    }
    for (int r = 0; r < size; r++) {
        d->efc_rownnz[nefc + r] = ncol;
        d->efc_rowadr[nefc + r] = adr;
        if (r > 0) {
            memcpy(d->efc_colind + adr, first, sizeof(int) * (size_t)ncol);
        }
        adr += ncol;
    }
}

int gdn_rows_add_sparse(const gdnModel* m, gdnData* d, const double* jac, const int* cols,
                        int ncol, const double* pos, const double* margin, double frictionloss,
                        int size, int type, int id) {
    int nv = m->nv, nefc = d->nefc;
    if (nefc + size > d->maxefc) {
        d->nefc_overflow += size;
        return 1;
    }

    // empty guard: a non-contact constraint with an all-zero Jacobian adds no rows
    if (!is_contact_type(type)) {
        int empty = 1;
        for (int i = 0; i < size * nv && empty; i++) {
            empty = jac[i] == 0;
        }
        if (empty) {
            return 0;
        }
    }
    memcpy(d->efc_J + (size_t)nefc * (size_t)nv, jac, sizeof(double) * (size_t)(size * nv));
    record_sparsity(m, d, jac, cols, ncol, size);
    for (int i = 0; i < size; i++) {
        d->efc_pos[nefc + i] = pos ? pos[i] : 0;
        d->efc_margin[nefc + i] = margin ? margin[i] : 0;
        d->efc_frictionloss[nefc + i] = frictionloss;
        d->efc_type[nefc + i] = type;
        d->efc_id[nefc + i] = id;
    }
    d->nefc += size;
    if (type == GDN_CNSTR_EQUALITY) {
        d->ne += size;
    } else if (type == GDN_CNSTR_FRICTION_DOF || type == GDN_CNSTR_FRICTION_TENDON) {
        d->nf += size;
    }
    return 0;
}

// one friction-loss row per dof with dof_frictionloss > 0: J = e_i
static void rows_friction(const gdnModel* m, gdnData* d, double* jac) {
    int nv = m->nv, full = 0;
    for (int i = 0; i < nv; i++) {
        if (m->dof_frictionloss[i] > 0) {
            if (full) {
                d->nefc_overflow += 1;
                continue;
            }
            memset(jac, 0, sizeof(double) * (size_t)nv);
            jac[i] = 1;
            full = gdn_rows_add_sparse(m, d, jac, &i, 1, NULL, NULL, m->dof_frictionloss[i], 1,
                                       GDN_CNSTR_FRICTION_DOF, i);
        }
    }
}

// one friction-loss row per tendon with tendon_frictionloss > 0: J = ten_J (after the dofs')
static void rows_friction_tendon(const gdnModel* m, gdnData* d) {
    int full = 0;
    for (int t = 0; t < m->ntendon; t++) {
        if (m->tendon_frictionloss[t] > 0) {
            if (full) {
                d->nefc_overflow += 1;
                continue;
            }
            full = gdn_rows_add(m, d, d->ten_J + (size_t)t * (size_t)m->nv, NULL, NULL,
                                m->tendon_frictionloss[t], 1, GDN_CNSTR_FRICTION_TENDON, t);
        }
    }
}

// tendon limits (after the joints'): dist = side (range[side] - ten_length) for side -1
// (lower) and +1 (upper), J = -side ten_J; a row when dist < margin
static void rows_limit_tendon(const gdnModel* m, gdnData* d, double* jac) {
    const int nv = m->nv;
    int full = 0;
    for (int t = 0; t < m->ntendon; t++) {
        if (!m->tendon_limited[t]) {
            continue;
        }
        const double margin = m->tendon_margin[t];
        const double* J = d->ten_J + (size_t)t * (size_t)nv;
        for (int side = -1; side <= 1; side += 2) {
            double dist = side * (m->tendon_range[2 * t + (side + 1) / 2] - d->ten_length[t]);
            if (dist < margin) {
                if (full) {
                    d->nefc_overflow += 1;
                    continue;
                }
                for (int k = 0; k < nv; k++) {
                    jac[k] = J[k] * -(double)side;
                }
                full = gdn_rows_add(m, d, jac, &dist, &margin, 0, 1, GDN_CNSTR_LIMIT_TENDON, t);
            }
        }
    }
}

// joint limits: hinge/slide dist = side (range[side] - q) for side -1 (lower) and +1 (upper),
// J = -side e_dof; ball dist = max(range) - angle, J = -axis. A row when dist < margin
static void rows_limit(const gdnModel* m, gdnData* d, double* jac) {
    int nv = m->nv, full = 0;
    for (int i = 0; i < m->njnt; i++) {
        if (!m->jnt_limited[i]) {
            continue;
        }
        double margin = m->jnt_margin[i];
        int type = m->jnt_type[i], dof = m->jnt_dofadr[i];
        const double* q = d->qpos + m->jnt_qposadr[i];
        if (type == GDN_JNT_SLIDE || type == GDN_JNT_HINGE) {
            for (int side = -1; side <= 1; side += 2) {
                double dist = side * (m->jnt_range[2 * i + (side + 1) / 2] - q[0]);
                if (dist < margin) {
                    if (full) {
                        d->nefc_overflow += 1;
                        continue;
                    }
                    memset(jac, 0, sizeof(double) * (size_t)nv);
                    jac[dof] = -(double)side;
                    full = gdn_rows_add_sparse(m, d, jac, &dof, 1, &dist, &margin, 0, 1,
                                               GDN_CNSTR_LIMIT_JOINT, i);
                }
            }
        } else if (type == GDN_JNT_BALL) {
            // rotation vector of the joint quaternion (angle wrapped to (-pi, pi])
            double axis[3] = {q[1], q[2], q[3]};
            double sin_half = gdn_normalize3(axis);
            double angle = 2 * atan2(sin_half, q[0]);
            if (angle > kPi) {
                angle -= 2 * kPi;
            }
            double rotvec[3];
            gdn_scl3(rotvec, axis, angle);
            double value = gdn_normalize3(rotvec);
            double range = fmax(m->jnt_range[2 * i], m->jnt_range[2 * i + 1]);
            double dist = range - value;
            if (dist < margin) {
                if (full) {
                    d->nefc_overflow += 1;
                    continue;
                }
                memset(jac, 0, sizeof(double) * (size_t)nv);
                gdn_scl3(jac + dof, rotvec, -1);
                const int cols[3] = {dof, dof + 1, dof + 2};
                full = gdn_rows_add_sparse(m, d, jac, cols, 3, &dist, &margin, 0, 1,
                                           GDN_CNSTR_LIMIT_JOINT, i);
            }
        }
    }
}

void gdn_rows_diag_approx(const gdnModel* m, gdnData* d) {
    const double* bw = m->body_invweight0;
    double* dA = d->efc_diagApprox;
    for (int i = 0; i < d->nefc; i++) {
        int id = d->efc_id[i];
        switch (d->efc_type[i]) {
        case GDN_CNSTR_EQUALITY: {
            // connect and weld: translational inverse weights of both bodies. MuJoCo 2.2.2
            // meant the rotational weight for weld rows 3-5, but its row counter is reset on
            // every equality row, so every weld row gets the translational one: reproduced.
            // joint / tendon: obj1's dof_invweight0 or tendon_invweight0, plus obj2's if any
            int o1 = m->eq_obj1id[id], o2 = m->eq_obj2id[id];
            if (m->eq_type[id] == GDN_EQ_JOINT) {
                dA[i] = m->dof_invweight0[m->jnt_dofadr[o1]];
                if (o2 >= 0) {
                    dA[i] += m->dof_invweight0[m->jnt_dofadr[o2]];
                }
            } else if (m->eq_type[id] == GDN_EQ_TENDON) {
                dA[i] = m->tendon_invweight0[o1];
                if (o2 >= 0) {
                    dA[i] += m->tendon_invweight0[o2];
                }
            } else {
                dA[i] = bw[2 * o1] + bw[2 * o2];
            }
            break;
        }
        case GDN_CNSTR_FRICTION_DOF:
            dA[i] = m->dof_invweight0[id];
            break;
        case GDN_CNSTR_LIMIT_JOINT:
            dA[i] = m->dof_invweight0[m->jnt_dofadr[id]];
            break;
        case GDN_CNSTR_FRICTION_TENDON:
        case GDN_CNSTR_LIMIT_TENDON:
            dA[i] = m->tendon_invweight0[id];
            break;
        case GDN_CNSTR_CONTACT_FRICTIONLESS:
        case GDN_CNSTR_CONTACT_PYRAMIDAL:
        case GDN_CNSTR_CONTACT_ELLIPTIC: {
            const gdnContact* con = d->contact + id;
            int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
            int dim = con->dim;
            double tran = bw[2 * b1] + bw[2 * b2];
            double rot = bw[2 * b1 + 1] + bw[2 * b2 + 1];
            if (d->efc_type[i] == GDN_CNSTR_CONTACT_FRICTIONLESS) {
                dA[i] = tran;
            } else if (d->efc_type[i] == GDN_CNSTR_CONTACT_ELLIPTIC) {
                // normal and sliding rows: translational; spin and rolling: rotational
                for (int j = 0; j < dim; j++) {
                    dA[i + j] = j < 3 ? tran : rot;
                }
                i += dim - 1;
            } else {
                // pyramid edge pair j: tran + mu_j^2 (tran for sliding, rot otherwise)
                for (int j = 0; j < dim - 1; j++) {
                    double fri = con->friction[j];
                    dA[i + 2 * j] = dA[i + 2 * j + 1] = tran + fri * fri * (j < 2 ? tran : rot);
                }
                i += 2 * dim - 3;
            }
            break;
        }
        default:
            dA[i] = 0;
            break;
        }
    }
}

gdnStatus gdn_make_constraint(const gdnModel* m, gdnData* d) {
    d->ne = d->nf = d->nefc = d->nefc_overflow = 0;
    for (int i = 0; i < d->ncon; i++) {
        d->contact[i].efc_address = -1;
    }
    if ((m->opt.disableflags & GDN_DSBL_CONSTRAINT) || d->maxefc == 0) {
        return GDN_OK;
    }
    size_t mark = gdn_arena_mark(d);
    double* scratch = gdn_arena_doubles(d, 18 * (size_t)m->nv + 1);
    if (!scratch) {
        gdn_arena_reset(d, mark);
        return GDN_ERR_MEMORY;
    }
    if (!(m->opt.disableflags & GDN_DSBL_EQUALITY)) {
        gdn_rows_equality(m, d, scratch);
    }
    if (!(m->opt.disableflags & GDN_DSBL_FRICTIONLOSS)) {
        rows_friction(m, d, scratch);
        rows_friction_tendon(m, d);
    }
    if (!(m->opt.disableflags & GDN_DSBL_LIMIT)) {
        rows_limit(m, d, scratch);
        rows_limit_tendon(m, d, scratch);
    }
    if (!(m->opt.disableflags & GDN_DSBL_CONTACT)) {
        gdn_rows_contact(m, d, scratch);
    }
    gdn_arena_reset(d, mark);
    if (d->nefc) {
        gdn_rows_diag_approx(m, d);
        gdn_rows_impedance(m, d);
    }
    return GDN_OK;
}

// J v row by row in the order of MuJoCo's dense mju_dot over all nv columns: four partial sums
// p_l over the columns c = l mod 4 below nblock = 4 floor(nv / 4), s = (p_0 + p_2) + (p_1 + p_3),
// then the products of the columns >= nblock summed left to right and added to s at once. Only
// the columns from the block of the row's first recorded column on are visited (the entries
// before it are exactly 0 and leave the partial sums at +0, those after the last add nothing)
void gdn_constraint_mul_J(const gdnModel* m, const gdnData* d, double* res, const double* vec) {
    int nv = m->nv;
    const int nblock = nv & ~3;
    for (int i = 0; i < d->nefc; i++) {
        if (d->efc_rownnz[i] == 0) {
            res[i] = 0;
            continue;
        }
        const double* row = d->efc_J + (size_t)i * (size_t)nv;
        const int* col = d->efc_colind + d->efc_rowadr[i];
        const int last = col[d->efc_rownnz[i] - 1];
        // the blocks from the first recorded column's to the last one's (or to nblock)
        const int end = last < nblock ? (last & ~3) + 4 : nblock;
        int k = col[0] & ~3;
        double s = 0;
        if (k < nblock) {
            double p0 = 0, p1 = 0, p2 = 0, p3 = 0;
            for (; k < end; k += 4) {
                p0 += row[k] * vec[k];
                p1 += row[k + 1] * vec[k + 1];
                p2 += row[k + 2] * vec[k + 2];
                p3 += row[k + 3] * vec[k + 3];
            }
            s = (p0 + p2) + (p1 + p3);
            k = nblock;
        }
        // the leftover columns (all exactly 0 when last < nblock: then s stays as it is, never
        // -0, so adding their +0 sum would not change it)
        const int rest = last < nblock ? 0 : nv - k;
        if (rest == 3) {
            s += row[k] * vec[k] + row[k + 1] * vec[k + 1] + row[k + 2] * vec[k + 2];
        } else if (rest == 2) {
            s += row[k] * vec[k] + row[k + 1] * vec[k + 1];
        } else if (rest == 1) {
            s += row[k] * vec[k];
        }
        res[i] = s;
    }
}

void gdn_constraint_mul_JT(const gdnModel* m, const gdnData* d, double* res, const double* vec) {
    int nv = m->nv;
    memset(res, 0, sizeof(double) * (size_t)nv);
    for (int i = 0; i < d->nefc; i++) {
        const double* row = d->efc_J + (size_t)i * (size_t)nv;
        const int* col = d->efc_colind + d->efc_rowadr[i];
        const int nnz = d->efc_rownnz[i];
        double f = vec[i];
        if (f == 0 || nnz == 0) {
            continue;
        }
        // the columns from the first to the last recorded one (the others are exactly 0)
        for (int k = col[0]; k <= col[nnz - 1]; k++) {
            res[k] += row[k] * f;
        }
    }
}

void gdn_constraint_qfrc(const gdnModel* m, gdnData* d) {
    gdn_constraint_mul_JT(m, d, d->qfrc_constraint, d->efc_force);
}

void gdn_constraint_jar(const gdnModel* m, const gdnData* d, const double* qacc, double* jar) {
    gdn_constraint_mul_J(m, d, jar, qacc);
    for (int i = 0; i < d->nefc; i++) {
        jar[i] -= d->efc_aref[i];
    }
}

// aref = -B vel - K I (pos - margin)
void gdn_reference_constraint(const gdnModel* m, gdnData* d) {
    const double* kbip = d->efc_KBIP;
    gdn_constraint_mul_J(m, d, d->efc_vel, d->qvel);
    for (int i = 0; i < d->nefc; i++) {
        d->efc_aref[i] = -kbip[4 * i + 1] * d->efc_vel[i] -
                         kbip[4 * i] * kbip[4 * i + 2] * (d->efc_pos[i] - d->efc_margin[i]);
    }
}
