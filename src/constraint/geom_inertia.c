// SPDX-License-Identifier: Apache-2.0
// A body's inertia from its geoms after a geom-size edit, with the loader's own arithmetic.
#include "constraint/geom_inertia.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "mjcf/inertia.h"

// a compiler geom carrying the model's record of geom k (only what the inertia functions read)
static void spec_geom(const gdnModel* m, int k, gdnSpecGeom* sg) {
    memset(sg, 0, sizeof(*sg));
    sg->type = m->geom_type[k];
    memcpy(sg->size, m->geom_size + 3 * k, sizeof(sg->size));
    memcpy(sg->pos, m->geom_pos + 3 * k, sizeof(sg->pos));
    memcpy(sg->quat, m->geom_quat + 4 * k, sizeof(sg->quat));
    sg->mass = m->geom_mass[k];
    memcpy(sg->inertia, m->geom_inertia + 3 * k, sizeof(sg->inertia));
    sg->group = 0; // selection is geom_inertial: every geom passed is selected
    sg->meshid = -1;
}

static int all_finite(const double* v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return 0;
        }
    }
    return 1;
}

gdnStatus gdn_geom_mass_edit(const gdnModel* m, int g, const double size[3],
                             gdnGeomMassEdit* out) {
    // the geom (compile_geom): density times volume, or the given mass with the shape's inertia
    gdnSpecGeom edited;
    spec_geom(m, g, &edited);
    memcpy(edited.size, size, sizeof(edited.size));
    double density = m->geom_density[g];
    if (density >= 0) {
        edited.mass = density * gdn_geom_volume(&edited);
        gdn_geom_set_inertia(&edited);
    } else {
        if (!(m->geom_mass[g] > 0) || !(gdn_geom_volume(&edited) > GDN_MINVAL)) {
            return GDN_ERR_UNSUPPORTED; // a given mass the compiler dropped (vanishing volume)
        }
        gdn_geom_set_inertia(&edited); // the given mass is the recorded one
    }
    if (!isfinite(edited.mass) || !all_finite(edited.inertia, 3) || edited.mass < 0 ||
        edited.inertia[0] < 0 || edited.inertia[1] < 0 || edited.inertia[2] < 0) {
        return GDN_ERR_ARG;
    }

    // the body (compile_inertia): its inertial geoms in id order, the edited one replaced
    int b = m->geom_bodyid[g], adr = m->body_geomadr[b], num = m->body_geomnum[b];
    gdnSpecGeom* geoms = malloc(sizeof(gdnSpecGeom) * (size_t)num);
    gdnSpecGeom** list = malloc(sizeof(gdnSpecGeom*) * (size_t)num);
    if (!geoms || !list) {
        free(geoms);
        free(list);
        return GDN_ERR_MEMORY;
    }
    int n = 0;
    for (int k = adr; k < adr + num; k++) {
        if (!m->geom_inertial[k]) {
            continue;
        }
        if (k == g) {
            geoms[n] = edited;
        } else {
            spec_geom(m, k, &geoms[n]);
        }
        list[n] = &geoms[n];
        n++;
    }
    const int all[2] = {0, 0};
    double mass = m->body_mass[b], ipos[3], iquat[4], I[3];
    memcpy(ipos, m->body_ipos + 3 * b, sizeof(ipos));
    memcpy(iquat, m->body_iquat + 4 * b, sizeof(iquat));
    memcpy(I, m->body_inertia + 3 * b, sizeof(I));
    const char* err = gdn_geom_frame(list, n, all, &mass, ipos, iquat, I);
    free(geoms);
    free(list);
    if (err) {
        return GDN_ERR_ARG;
    }
    // the compiler's bounds (0 here: body_inertiasource 1 excludes boundmass / boundinertia) and
    // checks: finite, non-negative, A + B >= C (balanceinertia would change it: refused instead)
    mass = fmax(mass, 0);
    for (int k = 0; k < 3; k++) {
        I[k] = fmax(I[k], 0);
    }
    if (!isfinite(mass) || !all_finite(I, 3) || !all_finite(ipos, 3) || !all_finite(iquat, 4) ||
        I[0] + I[1] < I[2] || I[0] + I[2] < I[1] || I[1] + I[2] < I[0]) {
        return GDN_ERR_ARG;
    }
    out->geom_mass = edited.mass;
    memcpy(out->geom_inertia, edited.inertia, sizeof(out->geom_inertia));
    out->mass = mass;
    memcpy(out->ipos, ipos, sizeof(ipos));
    memcpy(out->iquat, iquat, sizeof(iquat));
    memcpy(out->inertia, I, sizeof(I));
    return GDN_OK;
}
