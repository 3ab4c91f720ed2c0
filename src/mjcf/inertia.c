// SPDX-License-Identifier: Apache-2.0
// Mass properties of primitive geoms and their combination into a body's inertial frame.
#include "mjcf/inertia.h"

#include "mjcf/orientation.h"

double gdn_geom_volume(const gdnSpecGeom* g) {
    const double* s = g->size;
    switch (g->type) {
    case GDN_GEOM_SPHERE:
        return 4 * GDN_MJ_PI * s[0] * s[0] * s[0] / 3; // 4/3 pi r^3
    case GDN_GEOM_CAPSULE: {
        double height = 2 * s[1]; // pi r^2 h + 4/3 pi r^3
        return GDN_MJ_PI * (s[0] * s[0] * height + 4 * s[0] * s[0] * s[0] / 3);
    }
    case GDN_GEOM_CYLINDER: {
        double height = 2 * s[1]; // pi r^2 h
        return GDN_MJ_PI * s[0] * s[0] * height;
    }
    case GDN_GEOM_ELLIPSOID:
        return 4 * GDN_MJ_PI * s[0] * s[1] * s[2] / 3; // 4/3 pi a b c
    case GDN_GEOM_BOX:
        return s[0] * s[1] * s[2] * 8; // half-sizes
    case GDN_GEOM_MESH:
        return g->meshid >= 0 ? g->mesh_volume : 0; // set by the mesh compiler
    default:
        return 0;
    }
}

void gdn_geom_set_inertia(gdnSpecGeom* g) {
    const double* s = g->size;
    const double m = g->mass;
    double* I = g->inertia;
    switch (g->type) {
    case GDN_GEOM_MESH: {
        // the equivalent inertia box of the mesh: m (b_j^2 + b_k^2) / 3
        const double* b = g->mesh_boxsz;
        I[0] = m * (b[1] * b[1] + b[2] * b[2]) / 3;
        I[1] = m * (b[0] * b[0] + b[2] * b[2]) / 3;
        I[2] = m * (b[0] * b[0] + b[1] * b[1]) / 3;
        return;
    }
    case GDN_GEOM_SPHERE:
        // 2/5 m r^2
        I[0] = I[1] = I[2] = 2 * m * s[0] * s[0] / 5;
        return;
    case GDN_GEOM_CAPSULE: {
        // cylinder of height h plus two hemispheres, each displaced along z:
        // the hemisphere term m_s h (3r + 2h) / 8 shifts their inertia to the capsule centre
        double height = 2 * s[1];
        double r = s[0];
        double sphere_mass = m * 4 * r / (4 * r + 3 * height);
        double cylinder_mass = m - sphere_mass;
        I[0] = I[1] = cylinder_mass * (3 * r * r + height * height) / 12;
        I[2] = cylinder_mass * r * r / 2;
        double sphere_inertia = 2 * sphere_mass * r * r / 5;
        I[0] += sphere_inertia + sphere_mass * height * (3 * r + 2 * height) / 8;
        I[1] += sphere_inertia + sphere_mass * height * (3 * r + 2 * height) / 8;
        I[2] += sphere_inertia;
        return;
    }
    case GDN_GEOM_CYLINDER: {
        // m (3 r^2 + h^2) / 12 across, m r^2 / 2 along the axis
        double height = 2 * s[1];
        I[0] = I[1] = m * (3 * s[0] * s[0] + height * height) / 12;
        I[2] = m * s[0] * s[0] / 2;
        return;
    }
    case GDN_GEOM_ELLIPSOID:
        // m (b^2 + c^2) / 5 ...
        I[0] = m * (s[1] * s[1] + s[2] * s[2]) / 5;
        I[1] = m * (s[0] * s[0] + s[2] * s[2]) / 5;
        I[2] = m * (s[0] * s[0] + s[1] * s[1]) / 5;
        return;
    case GDN_GEOM_BOX:
        // m (b^2 + c^2) / 3 with half-sizes
        I[0] = m * (s[1] * s[1] + s[2] * s[2]) / 3;
        I[1] = m * (s[0] * s[0] + s[2] * s[2]) / 3;
        I[2] = m * (s[0] * s[0] + s[1] * s[1]) / 3;
        return;
    default:
        I[0] = I[1] = I[2] = 0;
        return;
    }
}

const char* gdn_geom_frame(gdnSpecGeom* const* geoms, int n, const int grouprange[2],
                           double* mass, double ipos[3], double iquat[4], double inertia[3]) {
    // select geoms by group
    int nsel = 0, first = -1;
    for (int i = 0; i < n; i++) {
        if (geoms[i]->group >= grouprange[0] && geoms[i]->group <= grouprange[1]) {
            nsel++;
            if (first < 0) {
                first = i;
            }
        }
    }
    if (nsel == 0) {
        return NULL;
    }

    // one geom: its frame is the inertial frame
    if (nsel == 1) {
        const gdnSpecGeom* g = geoms[first];
        for (int k = 0; k < 3; k++) {
            ipos[k] = g->pos[k];
            inertia[k] = g->inertia[k];
        }
        for (int k = 0; k < 4; k++) {
            iquat[k] = g->quat[k];
        }
        *mass = g->mass;
        return NULL;
    }

    // several: COM = sum m_i p_i / sum m_i
    double total = 0, com[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        const gdnSpecGeom* g = geoms[i];
        if (g->group < grouprange[0] || g->group > grouprange[1]) {
            continue;
        }
        total += g->mass;
        com[0] += g->mass * g->pos[0];
        com[1] += g->mass * g->pos[1];
        com[2] += g->mass * g->pos[2];
    }
    if (total < GDN_MINVAL) {
        return "body mass is too small, cannot compute center of mass";
    }
    *mass = total;
    ipos[0] = com[0] / total;
    ipos[1] = com[1] / total;
    ipos[2] = com[2] / total;

    // I = sum R_i diag(I_i) R_i' + m_i (|d_i|^2 1 - d_i d_i'), d_i = p_i - com
    double tot[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        const gdnSpecGeom* g = geoms[i];
        if (g->group < grouprange[0] || g->group > grouprange[1]) {
            continue;
        }
        double rotated[6], shift[6];
        double d[3] = {g->pos[0] - ipos[0], g->pos[1] - ipos[1], g->pos[2] - ipos[2]};
        gdn_mj_globalinertia(rotated, g->inertia, g->quat);
        gdn_mj_offcenter(shift, g->mass, d);
        for (int k = 0; k < 6; k++) {
            tot[k] = tot[k] + rotated[k] + shift[k];
        }
    }

    // principal axes of the combined tensor (the fullinertia path of the compiler)
    gdnSpecAlt alt;
    gdn_alt_clear(&alt);
    for (int k = 0; k < 6; k++) {
        alt.fullinertia[k] = tot[k];
    }
    const char* err = gdn_mj_alt_set(&alt, iquat, inertia, 0, "xyz");
    if (err) {
        return err;
    }
    return NULL;
}
