// SPDX-License-Identifier: Apache-2.0
// Mass properties from geoms: volume and principal inertia of primitive shapes, and the
// combination of several geoms into one body inertia (parallel-axis theorem, principal axes).
#ifndef GDN_MJCF_INERTIA_H
#define GDN_MJCF_INERTIA_H

#include "mjcf/spec.h"

// volume of a geom (0 for plane, hfield; a mesh geom's is set by the mesh compiler)
double gdn_geom_volume(const gdnSpecGeom* g);

// principal inertia about the geom frame of a solid primitive with mass g->mass
void gdn_geom_set_inertia(gdnSpecGeom* g);

// body inertial frame from its geoms (those with group in grouprange): mass, COM ipos,
// principal axes iquat and moments inertia. Returns NULL or a static error text. Leaves the
// outputs untouched when no geom is selected
const char* gdn_geom_frame(gdnSpecGeom* const* geoms, int n, const int grouprange[2],
                           double* mass, double ipos[3], double iquat[4], double inertia[3]);

#endif
