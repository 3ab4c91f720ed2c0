// SPDX-License-Identifier: Apache-2.0
// Dense residual Jacobians X = [dr/dq | dr/dv | dr/du] (residual.h).
#include "gradient/residual.h"

#include <string.h>

#include "base/arena.h"

// column c of X is the residual tangent of the unit input e_c (dq, then dv, then du)
static gdnStatus dense_columns(const gdnModel* m, gdnData* d, const double* a, const double* W,
                               int explicit_w, double* X, int ldx) {
    const int nv = m->nv, nu = m->nu, ncol = 2 * nv + nu;
    const size_t nvs = (size_t)(nv > 0 ? nv : 1), nus = (size_t)(nu > 0 ? nu : 1);
    if (ldx < ncol) {
        return GDN_ERR_ARG;
    }
    size_t mark = gdn_arena_mark(d);
    double* e = gdn_arena_doubles(d, 2 * nvs + nus);
    if (!e) {
        return GDN_ERR_MEMORY;
    }
    double* eu = e + nvs;
    double* dr = eu + nus;
    memset(e, 0, sizeof(double) * (nvs + nus));
    gdnStatus status = GDN_OK;
    for (int c = 0; c < ncol && status == GDN_OK; c++) {
        double* seed = c < 2 * nv ? e + (c < nv ? c : c - nv) : eu + (c - 2 * nv);
        gdnResidualDirection dir = {c < nv ? e : NULL, c >= nv && c < 2 * nv ? e : NULL,
                                    NULL, c >= 2 * nv ? eu : NULL, NULL, NULL, NULL, NULL};
        *seed = 1;
        if (explicit_w) {
            status = gdn_residual_jvp_ex(m, d, a, W, &dir, dr);
        } else {
            status = gdn_residual_jvp(m, d, a, dir.dq, dir.dv, dir.du, NULL, NULL, dr);
        }
        *seed = 0;
        for (int i = 0; i < nv; i++) {
            X[(size_t)i * ldx + c] = dr[i];
        }
    }
    gdn_arena_reset(d, mark);
    return status;
}

gdnStatus gdn_residual_dense_ex(const gdnModel* m, gdnData* d, const double* a, const double* W,
                                double* X, int ldx) {
    return dense_columns(m, d, a, W, 1, X, ldx);
}

gdnStatus gdn_residual_dense(const gdnModel* m, gdnData* d, const double* a, double* X,
                             int ldx) {
    return dense_columns(m, d, a, NULL, 0, X, ldx);
}
