// SPDX-License-Identifier: Apache-2.0
// Mesh file readers for collision skins: the vertex lists of binary / ASCII STL and OBJ files.
#ifndef GDN_CONTACT_MESH_FILE_H
#define GDN_CONTACT_MESH_FILE_H

#include <stddef.h>

#include <gradyn/gradyn.h>

#define GDN_MESH_MAX_FILE_BYTES (256u * 1024u * 1024u) // one mesh file
#define GDN_MESH_MAX_VERTICES (4 * 1024 * 1024)        // distinct vertices of one mesh

// mesh formats by file extension (case-insensitive)
typedef enum gdnMeshFormat { GDN_MESH_UNKNOWN = 0, GDN_MESH_STL, GDN_MESH_OBJ } gdnMeshFormat;

gdnMeshFormat gdn_mesh_format_of(const char* path);

// the distinct vertices (exact duplicates removed, first-appearance order) of a mesh held in
// memory: STL (binary when the size is 84 + 50 * triangle count, else ASCII "solid ... vertex
// x y z ...") or OBJ ("v x y z [w]" lines; everything else ignored). *verts (n x 3) is
// malloc'ed, the caller frees it. On failure *verts is NULL and cause (cause_size bytes) says
// why: GDN_ERR_PARSE for malformed or non-finite data or no vertices, GDN_ERR_MEMORY,
// GDN_ERR_UNSUPPORTED for an unknown format
gdnStatus gdn_mesh_parse(gdnMeshFormat format, const unsigned char* bytes, size_t len,
                         double** verts, int* nvert, char* cause, int cause_size);

// remove exact duplicates from v (n x 3) in place, keeping first appearances in order; returns
// the new count, -1 when memory runs out
int gdn_mesh_dedup(double* v, int n);

// read and parse a file (format from its extension); GDN_ERR_IO when it cannot be read or is
// larger than GDN_MESH_MAX_FILE_BYTES
gdnStatus gdn_mesh_read_file(const char* path, double** verts, int* nvert, char* cause,
                             int cause_size);

#endif
