// SPDX-License-Identifier: Apache-2.0
// Narrow phase: the pair-wise collision functions (MuJoCo 2.2.2's mjCOLLISIONFUNC) and their table.
#ifndef GDN_COLLISION_NARROWPHASE_H
#define GDN_COLLISION_NARROWPHASE_H

#include <gradyn/gradyn.h>

// most contacts one geom pair may produce (MuJoCo's mjMAXCONPAIR)
#define GDN_MAXCONPAIR 50

// Every collision function has MuJoCo's shape: geoms g1, g2 with
// geom_type[g1] <= geom_type[g2] (the order of the table below), world poses in d->geom_xpos /
// d->geom_xmat (needs kinematics). It writes at most GDN_MAXCONPAIR contacts into con and
// returns how many, filling only the geometric fields:
//   dist       signed surface distance (negative: penetration); contacts with dist > margin are
//              not returned
//   pos        midpoint between the two surfaces (world)
//   frame[0:3] unit normal pointing from geom1 to geom2
//   frame[3:6] zero, or a preferred first tangent (plane-capsule: the capsule axis); the driver
//              completes the frame with gdn_make_frame (MuJoCo's mju_makeFrame), which keeps
//              this hint when its norm is >= 0.5; frame[6:9] need not be set
// Every other field (dim, geom1/2, friction, solref, ...) is set by the driver.
typedef int (*gdnCollideFn)(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                            int g2, double margin);

// primitive pairs (collision/primitive_*.c)
int gdn_collide_plane_sphere(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                             double margin);
int gdn_collide_plane_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                              int g2, double margin);
int gdn_collide_plane_ellipsoid(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                                int g2, double margin);
int gdn_collide_plane_cylinder(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                               int g2, double margin);
int gdn_collide_sphere_sphere(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                              int g2, double margin);
int gdn_collide_sphere_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                               int g2, double margin);
int gdn_collide_capsule_capsule(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                                int g2, double margin);

// box pairs (collision/box*.c; MuJoCo's mjc_PlaneBox, mjc_SphereBox, mjc_CapsuleBox, mjc_BoxBox)
int gdn_collide_plane_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                          double margin);
int gdn_collide_sphere_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                           double margin);
int gdn_collide_capsule_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                            double margin);
int gdn_collide_box_box(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                        double margin);

// general convex pairs (collision/convex*.c; MuJoCo's mjc_PlaneConvex for plane-mesh and
// mjc_Convex for every other pair of sphere, capsule, ellipsoid, cylinder, box, mesh that has no
// closed form above)
int gdn_collide_plane_convex(const gdnModel* m, const gdnData* d, gdnContact* con, int g1,
                             int g2, double margin);
int gdn_collide_convex(const gdnModel* m, const gdnData* d, gdnContact* con, int g1, int g2,
                       double margin);

// the collision function of a type pair (type1 <= type2, gdnGeomType values); NULL when the pair
// is not collided (height fields, or a function not yet provided)
gdnCollideFn gdn_collide_function(int type1, int type2);

// complete a contact frame from its normal frame[0:3] (unit): the two tangents as MuJoCo's
// mju_makeFrame builds them (frame rows: normal, tangent1, tangent2 = normal x tangent1)
void gdn_make_frame(double frame[9]);

#endif
