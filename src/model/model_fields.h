// SPDX-License-Identifier: Apache-2.0
// Internal: every value a gdnModel holds as a list of (name, pointer, count, type), so tests and
// tools can compare or hash whole models and a new field is covered without being listed twice.
#ifndef GDN_MODEL_FIELDS_H
#define GDN_MODEL_FIELDS_H

#include <stddef.h>

#include <gradyn/model.h>

typedef enum gdnFieldType {
    GDN_FIELD_INT = 0,
    GDN_FIELD_DOUBLE = 1,
    GDN_FIELD_CHAR = 2
} gdnFieldType;

typedef struct gdnModelField {
    const char* name; // "nq", "opt.timestep", "body_mass", "vert_pos", ...
    const void* ptr;  // first value (NULL when count is 0 and the array is absent)
    size_t count;     // number of values
    gdnFieldType type;
} gdnModelField;

// fill out[0 .. min(cap, total)) with m's fields and return the total: the sizes, every option
// and penalty member, stat_meaninertia, every array of the single allocation (model_arrays.h),
// the collision-mesh vertices and the convex-mesh arrays. Internal pointers (buffer_, ...) are
// not values and are left out. out may be NULL with cap 0 to ask for the total
int gdn_model_fields(const gdnModel* m, gdnModelField* out, int cap);

#endif
