// SPDX-License-Identifier: Apache-2.0
// Mesh file readers: vertex lists and triangles of binary STL and OBJ files.
#ifndef GDN_MJCF_MESH_FILE_H
#define GDN_MJCF_MESH_FILE_H

#include <stddef.h>

#include <gradyn/gradyn.h>

#define GDN_MESH_MAX_FILE_BYTES (256u * 1024u * 1024u) // one mesh file
#define GDN_MESH_MAX_VERTICES (4 * 1024 * 1024)        // distinct vertices of one mesh

// mesh formats by file extension (case-insensitive)
typedef enum gdnMeshFormat { GDN_MESH_UNKNOWN = 0, GDN_MESH_STL, GDN_MESH_OBJ } gdnMeshFormat;

gdnMeshFormat gdn_mesh_format_of(const char* path);

// the distinct vertices (exact duplicates removed, first-appearance order) of a mesh held in
// memory: STL (binary only, as MuJoCo 2.2.2: 1 to 200000 triangles, the size exactly 84 + 50 *
// triangle count; an ASCII STL is refused) or OBJ ("v x y z [w]" lines; everything else ignored). *verts (n x 3) is
// malloc'ed, the caller frees it. On failure *verts is NULL and cause (cause_size bytes) says
// why: GDN_ERR_PARSE for malformed or non-finite data or no vertices, GDN_ERR_MEMORY,
// GDN_ERR_UNSUPPORTED for an unknown format
gdnStatus gdn_mesh_parse(gdnMeshFormat format, const unsigned char* bytes, size_t len,
                         double** verts, int* nvert, char* cause, int cause_size);

// remove exact duplicates from v (n x 3) in place, keeping first appearances in order; returns
// the new count, -1 when memory runs out
int gdn_mesh_dedup(double* v, int n);

// a file's vertices and triangles as read, before any deduplication (MuJoCo 2.2.2's order):
// STL: three vertices per triangle in file order, triangle t = (3t, 3t+1, 3t+2); OBJ: the "v"
// list, and each "f" polygon (corner "v[/vt[/vn]]", 1-based or negative = relative) split into
// the fan (0 1 2), (0 2 3), ...; nface is 0 for an OBJ without faces. Both arrays malloc'ed
typedef struct gdnMeshTriangles {
    double* vert; // (nvert x 3)
    int nvert;
    int* face;    // (nface x 3) ids into vert
    int nface;
} gdnMeshTriangles;

// parse / read a file (format from its extension) into out (freed with
// gdn_mesh_triangles_free); the statuses of gdn_mesh_parse, GDN_ERR_PARSE for a face id out of
// range, and GDN_ERR_IO when the file cannot be read or is larger than GDN_MESH_MAX_FILE_BYTES
gdnStatus gdn_mesh_parse_triangles(gdnMeshFormat format, const unsigned char* bytes, size_t len,
                                   gdnMeshTriangles* out, char* cause, int cause_size);
gdnStatus gdn_mesh_read_triangles(const char* path, gdnMeshTriangles* out, char* cause,
                                  int cause_size);
void gdn_mesh_triangles_free(gdnMeshTriangles* t);

#endif
