// SPDX-License-Identifier: Apache-2.0
// Internal: box-box's decisions (collision/box_box.c) that its derivative reads instead of
// re-deriving them: face frames, the separating-axis search, the edge pair's reference face,
// the incident corner and flat edges, and the segment-rectangle crossings.
#ifndef GDN_COLLISION_BOX_BOX_H
#define GDN_COLLISION_BOX_BOX_H

// A face frame: the proper rotation F that turns face f of a box to +z (f = 0, 1, 2: the +x, +y,
// +z faces; 3, 4, 5: the -x, -y, -z faces), stored as a signed permutation:
// (F v)_k = sign[k] v[perm[k]].
typedef struct gdnFaceFrame {
    int perm[3];
    double sign[3];
} gdnFaceFrame;

// the face frame of face 0..5
gdnFaceFrame gdn_box_face_frame(int face);

// F as a dense matrix
void gdn_box_face_matrix(double F[9], const gdnFaceFrame* f);

// r = F v
void gdn_box_face_rotate(double r[3], const gdnFaceFrame* f, const double v[3]);

// R = F M (rows of M permuted and signed)
void gdn_box_face_rotate_rows(double R[9], const gdnFaceFrame* f, const double M[9]);

// res = A' B, summed over rows in order (MuJoCo's mju_mulMatTMat)
void gdn_box_mat_transpose_mul(double res[9], const double A[9], const double B[9]);

// res = A B', each entry a dot product summed from zero (MuJoCo's mju_mulMatMatT)
void gdn_box_mat_mul_transpose(double res[9], const double A[9], const double B[9]);

// res = A'
void gdn_box_transpose3(double res[9], const double A[9]);

// r += v s
void gdn_box_add_scaled3(double r[3], const double v[3], double s);

// Separating-axis result: code 0..5 a face of box 1 (axis i, 3 + i when box 2 lies on the
// negative side), 6..11 a face of box 2, 12 + 3 i + j the edge pair (axis i of box 1, axis j of
// box 2); -1: none.
typedef struct gdnBoxAxes {
    double rot[9], rott[9], rotabs[9], rottabs[9]; // rot = R1' R2 and derived
    double pos21[3], pos12[3];                     // each center in the other box's frame
    double edge_normal[3];                         // edge pair: unit axis in box 1's frame
    int code;
    int edge_corner1, edge_corner2; // edge pair: sign bits of the touching edges
    int flipped;                    // edge pair: box 2 on the negative side of edge_normal
} gdnBoxAxes;

// The 15 separating axes of the two boxes (see box_box.c); 0 when an axis separates them by
// more than margin, else 1 with ax filled (ax->code -1 when no axis was picked). An edge pair
// replaces the best face only when its overlap is smaller by a relative 1e-12 (MuJoCo's) and by
// edge_bias (m: gdnOption.box_edge_bias, 0 for MuJoCo's rule)
int gdn_box_box_axes(gdnBoxAxes* ax, const double* pos1, const double* mat1, const double* size1,
                     const double* pos2, const double* mat2, const double* size2, double margin,
                     double edge_bias);

// the unnormalized edge-pair axis m = e_i x b_j in box 1's frame, b = column j of rot (given
// as row j of rott); the primal's component order
void gdn_box_edge_axis(double n[3], int i, const double* b);

// Edge pair (ax->code >= 12): box 1's face (0..5) that contains its touching edge, and box 2's
// two axes ax1, ax2 across its touching edge (ax1 the one more parallel to box 1's edge)
int gdn_box_box_edge_face(const gdnBoxAxes* ax, int* ax1, int* ax2);

// the incident box's lowest corner (bit i: +s_i along incident axis i) from r, its axes (rows)
// in the face frame, and which of its axes are flat enough to the face (|r_2i| < 0.5), in order;
// returns how many (flat[] filled with their indices)
int gdn_box_incident_corner(const double r[9], int* corner, int flat[3]);

// Face contact (reference face of box 2 when on_box2, with frame ff, F its matrix): the incident
// box's axes r (rows), center p and sizes s in the face frame, and the reference box's sizes
// ref_size there (signed). Linear in (rot, pos21, pos12, size1, size2): the derivative passes
// their tangents for the tangents
void gdn_box_face_incident(const gdnFaceFrame* ff, const double F[9], int on_box2,
                           const double rot[9], const double pos21[3], const double pos12[3],
                           const double size1[3], const double size2[3], double r[9],
                           double p[3], double ref_size[3], double s[3]);

// Clipping decisions of the face and edge contacts (box_box.c): the parallelogram coordinates
// of a point; a rectangle corner strictly inside the incident parallelogram; incident corner i
// strictly inside the rectangle (i = 0 always); the edge contacts' tests of a rectangle corner
// and of a projected corner of box 2, which depend on whether side crossings (nlines) or
// rectangle corners (ncorners) were found
void gdn_box_parallelogram_uv(double x, double y, double a, double b, double c, double dd,
                              double det, double* u, double* v);
int gdn_box_face_corner_inside(double u, double v);
int gdn_box_face_incident_inside(int i, const double q[3], double lx, double ly);
int gdn_box_edge_corner_tested(int nlines, double u, double v);
int gdn_box_edge_incident_tested(int nlines, int ncorners, double x, double y, double lx,
                                 double ly);

// Crossings of the segment o + t e (line = [o, e], only x and y used), t in [0, 1], with the
// sides x_q = +-half[q] of the rectangle |x| <= half[0], |y| <= half[1] (q = 0: the sides
// x = +-half[0], q = 1: y = +-half[1]) that lie on the rectangle; in the order q, then -, +.
typedef struct gdnSideHit {
    double t;     // parameter along the segment
    double along; // the other coordinate at the crossing
    double side;  // +-half[q]
    int q;
    int j; // the side's sign, -1 or +1
} gdnSideHit;

int gdn_box_segment_rect_hits(gdnSideHit hits[4], const double line[6], const double half[3]);

#endif
