// SPDX-License-Identifier: Apache-2.0
// Ray-geom intersections (MuJoCo 2.2.2's engine_ray semantics: each primitive's quadric or
// faces in its local frame, bounding-sphere tests first, meshes triangle by triangle).
#include "collision/ray.h"

#include <math.h>

#include "math/vec.h"

// local frame of a geom: lpnt = mat' (pnt - pos), lvec = mat' vec
static void ray_map(const double* pos, const double* mat, const double* pnt, const double* vec,
                    double* lpnt, double* lvec) {
    const double dif[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
    gdn_mulmat3T(lpnt, mat, dif);
    gdn_mulmat3T(lvec, mat, vec);
}

// a x^2 + 2 b x + c = 0: the smaller non-negative root, -1 without; both roots in x (-1, -1
// when the determinant is below GDN_MINVAL)
static double ray_quad(double a, double b, double c, double* x) {
    double det = b * b - a * c;
    if (det < GDN_MINVAL) {
        x[0] = x[1] = -1;
        return -1;
    }
    det = sqrt(det);
    x[0] = (-b - det) / a;
    x[1] = (-b + det) / a;
    return x[0] >= 0 ? x[0] : x[1] >= 0 ? x[1] : -1;
}

// plane z = 0 of the local frame, front face only, within the size rectangle (size <= 0:
// infinite)
static double ray_plane(const double* pos, const double* mat, const double* size,
                        const double* pnt, const double* vec) {
    double lpnt[3], lvec[3];
    ray_map(pos, mat, pnt, vec, lpnt, lvec);
    if (lvec[2] > -GDN_MINVAL) {
        return -1;
    }
    const double x = -lpnt[2] / lvec[2];
    if (x < 0) {
        return -1;
    }
    const double p0 = lpnt[0] + x * lvec[0], p1 = lpnt[1] + x * lvec[1];
    return (size[0] <= 0 || fabs(p0) <= size[0]) && (size[1] <= 0 || fabs(p1) <= size[1]) ? x
                                                                                          : -1;
}

// |x vec + pnt - pos| = r
static double ray_sphere(const double* pos, double r, const double* pnt, const double* vec) {
    const double dif[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
    const double a = vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2];
    const double b = vec[0] * dif[0] + vec[1] * dif[1] + vec[2] * dif[2];
    const double c = dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2] - r * r;
    double xx[2];
    return ray_quad(a, b, c, xx);
}

// keep the smaller non-negative candidate
static void take(double* x, double sol) {
    if (sol >= 0 && (*x < 0 || sol < *x)) {
        *x = sol;
    }
}

// capsule: the round side between the flat ends, then each end's half sphere
static double ray_capsule(const double* pos, const double* mat, const double* size,
                          const double* pnt, const double* vec) {
    if (ray_sphere(pos, size[0] + size[1], pnt, vec) < 0) {
        return -1;
    }
    double lpnt[3], lvec[3], xx[2], x = -1;
    ray_map(pos, mat, pnt, vec, lpnt, lvec);
    double a = lvec[0] * lvec[0] + lvec[1] * lvec[1];
    double b = lvec[0] * lpnt[0] + lvec[1] * lpnt[1];
    double c = lpnt[0] * lpnt[0] + lpnt[1] * lpnt[1] - size[0] * size[0];
    const double sol = ray_quad(a, b, c, xx);
    if (sol >= 0 && fabs(lpnt[2] + sol * lvec[2]) <= size[1]) {
        take(&x, sol);
    }
    // top cap (z >= size[1]), then bottom cap (z <= -size[1])
    double ldif[3] = {lpnt[0], lpnt[1], lpnt[2] - size[1]};
    a = lvec[0] * lvec[0] + lvec[1] * lvec[1] + lvec[2] * lvec[2];
    b = lvec[0] * ldif[0] + lvec[1] * ldif[1] + lvec[2] * ldif[2];
    c = ldif[0] * ldif[0] + ldif[1] * ldif[1] + ldif[2] * ldif[2] - size[0] * size[0];
    ray_quad(a, b, c, xx);
    for (int i = 0; i < 2; i++) {
        if (xx[i] >= 0 && lpnt[2] + xx[i] * lvec[2] >= size[1]) {
            take(&x, xx[i]);
        }
    }
    ldif[2] = lpnt[2] + size[1];
    b = lvec[0] * ldif[0] + lvec[1] * ldif[1] + lvec[2] * ldif[2];
    c = ldif[0] * ldif[0] + ldif[1] * ldif[1] + ldif[2] * ldif[2] - size[0] * size[0];
    ray_quad(a, b, c, xx);
    for (int i = 0; i < 2; i++) {
        if (xx[i] >= 0 && lpnt[2] + xx[i] * lvec[2] <= -size[1]) {
            take(&x, xx[i]);
        }
    }
    return x;
}

// ellipsoid: (x lvec + lpnt)' diag(1 / size^2) (x lvec + lpnt) = 1
static double ray_ellipsoid(const double* pos, const double* mat, const double* size,
                            const double* pnt, const double* vec) {
    double lpnt[3], lvec[3], xx[2];
    ray_map(pos, mat, pnt, vec, lpnt, lvec);
    const double s[3] = {1 / (size[0] * size[0]), 1 / (size[1] * size[1]),
                         1 / (size[2] * size[2])};
    const double a = s[0] * lvec[0] * lvec[0] + s[1] * lvec[1] * lvec[1] + s[2] * lvec[2] * lvec[2];
    const double b = s[0] * lvec[0] * lpnt[0] + s[1] * lvec[1] * lpnt[1] + s[2] * lvec[2] * lpnt[2];
    const double c =
        s[0] * lpnt[0] * lpnt[0] + s[1] * lpnt[1] * lpnt[1] + s[2] * lpnt[2] * lpnt[2] - 1;
    return ray_quad(a, b, c, xx);
}

// cylinder: the flat faces within the radius, then the round side between them
static double ray_cylinder(const double* pos, const double* mat, const double* size,
                           const double* pnt, const double* vec) {
    if (ray_sphere(pos, sqrt(size[0] * size[0] + size[1] * size[1]), pnt, vec) < 0) {
        return -1;
    }
    double lpnt[3], lvec[3], xx[2], x = -1;
    ray_map(pos, mat, pnt, vec, lpnt, lvec);
    if (fabs(lvec[2]) > GDN_MINVAL) {
        for (int side = -1; side <= 1; side += 2) {
            const double sol = (side * size[1] - lpnt[2]) / lvec[2];
            if (sol >= 0) {
                const double p0 = lpnt[0] + sol * lvec[0], p1 = lpnt[1] + sol * lvec[1];
                if (p0 * p0 + p1 * p1 <= size[0] * size[0]) {
                    take(&x, sol);
                }
            }
        }
    }
    const double a = lvec[0] * lvec[0] + lvec[1] * lvec[1];
    const double b = lvec[0] * lpnt[0] + lvec[1] * lpnt[1];
    const double c = lpnt[0] * lpnt[0] + lpnt[1] * lpnt[1] - size[0] * size[0];
    const double sol = ray_quad(a, b, c, xx);
    if (sol >= 0 && fabs(lpnt[2] + sol * lvec[2]) <= size[1]) {
        take(&x, sol);
    }
    return x;
}

// box: each face plane with a non-parallel ray, accepted within the face rectangle
static double ray_box(const double* pos, const double* mat, const double* size,
                      const double* pnt, const double* vec) {
    if (ray_sphere(pos, sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]), pnt,
                   vec) < 0) {
        return -1;
    }
    static const int iface[3][2] = {{1, 2}, {0, 2}, {0, 1}};
    double lpnt[3], lvec[3], x = -1;
    ray_map(pos, mat, pnt, vec, lpnt, lvec);
    for (int i = 0; i < 3; i++) {
        if (fabs(lvec[i]) > GDN_MINVAL) {
            for (int side = -1; side <= 1; side += 2) {
                const double sol = (side * size[i] - lpnt[i]) / lvec[i];
                if (sol >= 0) {
                    const int i0 = iface[i][0], i1 = iface[i][1];
                    const double p0 = lpnt[i0] + sol * lvec[i0], p1 = lpnt[i1] + sol * lvec[i1];
                    if (fabs(p0) <= size[i0] && fabs(p1) <= size[i1]) {
                        take(&x, sol);
                    }
                }
            }
        }
    }
    return x;
}

double gdn_ray_geom(const double pos[3], const double mat[9], const double size[3],
                    const double pnt[3], const double vec[3], int type) {
    switch (type) {
    case GDN_GEOM_PLANE:
        return ray_plane(pos, mat, size, pnt, vec);
    case GDN_GEOM_SPHERE:
        return ray_sphere(pos, size[0], pnt, vec);
    case GDN_GEOM_CAPSULE:
        return ray_capsule(pos, mat, size, pnt, vec);
    case GDN_GEOM_ELLIPSOID:
        return ray_ellipsoid(pos, mat, size, pnt, vec);
    case GDN_GEOM_CYLINDER:
        return ray_cylinder(pos, mat, size, pnt, vec);
    case GDN_GEOM_BOX:
        return ray_box(pos, mat, size, pnt, vec);
    default:
        return -1;
    }
}

// a triangle v (local frame) hit by the ray lpnt + x lvec: the projections on the ray's normal
// plane (basis b0, b1) must enclose the origin, then the distance to the triangle's plane
static double ray_triangle(double v[3][3], const double* lpnt, const double* lvec,
                           const double* b0, const double* b1) {
    double dif[3][3], planar[3][2];
    for (int i = 0; i < 3; i++) {
        gdn_sub3(dif[i], v[i], lpnt);
        planar[i][0] = gdn_dot3(b0, dif[i]);
        planar[i][1] = gdn_dot3(b1, dif[i]);
    }
    for (int k = 0; k < 2; k++) {
        if ((planar[0][k] > 0 && planar[1][k] > 0 && planar[2][k] > 0) ||
            (planar[0][k] < 0 && planar[1][k] < 0 && planar[2][k] < 0)) {
            return -1;
        }
    }
    // A t = b with A = (p0 - p2, p1 - p2), b = -p2
    const double A[4] = {planar[0][0] - planar[2][0], planar[1][0] - planar[2][0],
                         planar[0][1] - planar[2][1], planar[1][1] - planar[2][1]};
    const double b[2] = {-planar[2][0], -planar[2][1]};
    const double det = A[0] * A[3] - A[1] * A[2];
    if (fabs(det) < GDN_MINVAL) {
        return -1;
    }
    const double t0 = (A[3] * b[0] - A[1] * b[1]) / det;
    const double t1 = (-A[2] * b[0] + A[0] * b[1]) / det;
    if (t0 < 0 || t1 < 0 || t0 + t1 > 1) {
        return -1;
    }
    double nrm[3];
    gdn_sub3(dif[0], v[0], v[2]);
    gdn_sub3(dif[1], v[1], v[2]);
    gdn_sub3(dif[2], lpnt, v[2]);
    gdn_cross3(nrm, dif[0], dif[1]);
    const double denom = gdn_dot3(lvec, nrm);
    if (fabs(denom) < GDN_MINVAL) {
        return -1;
    }
    return -gdn_dot3(dif[2], nrm) / denom;
}

// a mesh geom: its bounding box (geom_size), then every triangle; *face (NULL: not wanted)
// the nearest hit's triangle (the first of equal distances, as the scan keeps it), -1 for none
static double ray_mesh_face(const gdnModel* m, const gdnData* d, int id, const double* pnt,
                            const double* vec, int* face) {
    if (face) {
        *face = -1;
    }
    const double* pos = d->geom_xpos + 3 * id;
    const double* mat = d->geom_xmat + 9 * id;
    const int mesh = m->geom_dataid[id];
    if (mesh < 0 || mesh >= m->nmesh || ray_box(pos, mat, m->geom_size + 3 * id, pnt, vec) < 0) {
        return -1;
    }
    double lpnt[3], lvec[3];
    ray_map(pos, mat, pnt, vec, lpnt, lvec);
    // a basis b0, b1 of the plane normal to lvec
    double b0[3] = {1, 1, 1}, b1[3];
    if (fabs(lvec[0]) >= fabs(lvec[1]) && fabs(lvec[0]) >= fabs(lvec[2])) {
        b0[0] = 0;
    } else if (fabs(lvec[1]) >= fabs(lvec[2])) {
        b0[1] = 0;
    } else {
        b0[2] = 0;
    }
    gdn_addscl3(b1, b0, lvec, -gdn_dot3(lvec, b0) / gdn_dot3(lvec, lvec));
    gdn_normalize3(b1);
    gdn_cross3(b0, b1, lvec);
    gdn_normalize3(b0);
    double x = -1;
    const int f0 = m->mesh_faceadr[mesh], f1 = f0 + m->mesh_facenum[mesh];
    const int vadr = m->mesh_vertadr[mesh];
    for (int f = f0; f < f1; f++) {
        double v[3][3];
        for (int i = 0; i < 3; i++) {
            gdn_copy3(v[i], m->mesh_vert + 3 * (vadr + m->mesh_face[3 * f + i]));
        }
        const double before = x;
        take(&x, ray_triangle(v, lpnt, lvec, b0, b1));
        if (face && x != before) {
            *face = f;
        }
    }
    return x;
}

static double ray_mesh(const gdnModel* m, const gdnData* d, int id, const double* pnt,
                       const double* vec) {
    return ray_mesh_face(m, d, id, pnt, vec, NULL);
}

int gdn_ray_mesh_face(const gdnModel* m, const gdnData* d, int geom, const double pnt[3],
                      const double vec[3]) {
    int face = -1;
    if (m->geom_type[geom] == GDN_GEOM_MESH) {
        ray_mesh_face(m, d, geom, pnt, vec, &face);
    }
    return face;
}

double gdn_ray(const gdnModel* m, const gdnData* d, const double pnt[3], const double vec[3],
               int bodyexclude, int* geomid) {
    double dist = -1;
    *geomid = -1;
    for (int i = 0; i < m->ngeom; i++) {
        if (m->geom_bodyid[i] == bodyexclude || m->geom_rgba[4 * i + 3] == 0) {
            continue;
        }
        const double x =
            m->geom_type[i] == GDN_GEOM_MESH
                ? ray_mesh(m, d, i, pnt, vec)
                : gdn_ray_geom(d->geom_xpos + 3 * i, d->geom_xmat + 9 * i, m->geom_size + 3 * i,
                               pnt, vec, m->geom_type[i]);
        if (x >= 0 && (x < dist || dist < 0)) {
            dist = x;
            *geomid = i;
        }
    }
    return dist;
}
