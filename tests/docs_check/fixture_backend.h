/* A backend table for the docs check's own test (cmake/DlxDocs.cmake): its entries against the
 * contract table of fixture_contract.md, which has a row for some and names one that is gone. */
#include <stdbool.h>

typedef struct dlx_not_the_backend {
  int (*not_an_entry)(void);
} dlx_not_the_backend;

typedef struct dlx_backend {
  const char *name;     /* a row of its own */
  bool host_accessible; /* a row shared with name */
  int (*documented)(int device_id);
  int (*undocumented)(int device_id, void *err);
  const struct dlx_stream_ops *stream;
  /* a member named in a comment is no entry: int (*in_a_comment)(void); */
} dlx_backend;
