// SPDX-License-Identifier: Apache-2.0
// Internal: the elliptic cone's block subproblem of PGS (MuJoCo 2.2.2's QCQP solvers).
#ifndef GDN_MATH_CONE_QCQP_H
#define GDN_MATH_CONE_QCQP_H

// min 0.5 x'Ax + x'b subject to sum (x_j / s_j)^2 <= r^2 (A n x n row-major), by Newton's
// method on the multiplier la of the scaled problem (x = s .* u, |u| <= r):
// u = -(A_s + la I)^-1 b_s. Each returns 1 when the constraint is active (la > 0), else 0;
// x = 0 when A_s + la I is not positive definite. n = 2 and n = 3 with explicit inverses,
// gdn_qcqp_n for any n <= 5 with a Cholesky factor.
int gdn_qcqp2(double* x, const double* A, const double* b, const double* s, double r);
int gdn_qcqp3(double* x, const double* A, const double* b, const double* s, double r);
int gdn_qcqp_n(double* x, const double* A, const double* b, const double* s, double r, int n);

#endif
