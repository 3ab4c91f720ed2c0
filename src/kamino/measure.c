// SPDX-License-Identifier: Apache-2.0
// Measurements on a Kamino world's state: world points of body-frame points and the loop
// closure error of the model's equality connects.
#include <math.h>

#include "kamino/kamino.h"
#include "math/vec.h"

void gdn_kamino_body_point(const gdnKaminoModel* km, const gdnKaminoWorld* w, int body,
                           const double local[3], double out[3]) {
    if (!km || !w || !local || !out || body < 0 || body >= km->nbody) {
        return;
    }
    // the body frame is the principal (COM) frame turned back by body_iquat and shifted by
    // -R body_ipos: p = c + R_com R(iquat)' (local - ipos)
    const gdnModel* m = km->m;
    double Rc[9], Ri[9], rel[3], t[3];
    gdn_quat2mat(Rc, w->body_quat + 4 * body);
    gdn_quat2mat(Ri, m->body_iquat + 4 * body);
    gdn_sub3(rel, local, m->body_ipos + 3 * body);
    gdn_mulmat3T(t, Ri, rel);
    gdn_mulmat3(out, Rc, t);
    gdn_add3(out, out, w->body_pos + 3 * body);
}

double gdn_kamino_connect_error(const gdnKaminoModel* km, const gdnKaminoWorld* w) {
    if (!km || !w) {
        return NAN;
    }
    const gdnModel* m = km->m;
    double worst = 0;
    for (int e = 0; e < m->neq; e++) {
        if (m->eq_type[e] != 0) { // (0: connect)
            continue;
        }
        const double* data = m->eq_data + GDN_NEQDATA * e;
        double p1[3], p2[3], d[3];
        gdn_kamino_body_point(km, w, m->eq_obj1id[e], data, p1);
        gdn_kamino_body_point(km, w, m->eq_obj2id[e], data + 3, p2);
        gdn_sub3(d, p1, p2);
        worst = fmax(worst, gdn_norm3(d));
    }
    return worst;
}
