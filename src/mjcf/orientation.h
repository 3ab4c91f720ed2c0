// SPDX-License-Identifier: Apache-2.0
// Frame and orientation math of the MJCF compiler, with MuJoCo 2.2.2's arithmetic so that
// compiled frames and inertias agree with MuJoCo to the last bit where possible.
#ifndef GDN_MJCF_ORIENTATION_H
#define GDN_MJCF_ORIENTATION_H

#include "mjcf/spec.h"

// normalize v (n entries) by division; when |v|^2 < 1e-14 leave it and return 0, else |v|
double gdn_mj_normvec(double* v, int n);

// res = normalize(a b) (Hamilton product; res may alias)
void gdn_mj_mulquat(double res[4], const double a[4], const double b[4]);

// quaternion of the frame whose axes (columns) are x, y, z
void gdn_mj_frame2quat(double q[4], const double x[3], const double y[3], const double z[3]);

// minimal rotation taking (0, 0, 1) to the unit vector v
void gdn_mj_z2quat(double q[4], const double v[3]);

// apply the alternative specifications that are set, in MuJoCo's order (axisangle, xyaxes,
// zaxis, fullinertia, euler), to quat (and inertia for fullinertia); converts degrees in place.
// Returns NULL or a static error text
const char* gdn_mj_alt_set(gdnSpecAlt* alt, double quat[4], double inertia[3], int degree,
                           const char* eulerseq);

// eigen-decomposition of a symmetric 3x3 matrix by Jacobi rotations expressed as a
// quaternion: mat = R(quat) diag(eigval) R(quat)', eigenvalues in decreasing order
void gdn_mj_eig3(double eigval[3], double quat[4], const double mat[9]);

// symmetric tensor [xx yy zz xy xz yz] of R(quat) diag(local) R(quat)'
void gdn_mj_globalinertia(double global[6], const double local[3], const double quat[4]);

// parallel-axis term m (|d|^2 I - d d') as [xx yy zz xy xz yz]
void gdn_mj_offcenter(double res[6], double mass, const double d[3]);


// mark every alternative unset
void gdn_alt_clear(gdnSpecAlt* alt);

#endif
