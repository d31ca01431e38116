/* A zlib deflater that one worker reuses chunk after chunk, and that codes the byte planes
   of a shuffled chunk that deflate cannot shorten with Huffman codes alone
   (docs/format.md §7.9). */
#ifndef CHUNKPIPE_DEFLATE_H
#define CHUNKPIPE_DEFLATE_H

#include <stddef.h>

typedef struct chunkpipe_deflater chunkpipe_deflater;

/* NULL when memory runs out. */
chunkpipe_deflater *chunkpipe_deflater_new(void);
void chunkpipe_deflater_free(chunkpipe_deflater *d);

/* chunkpipe_deflate_chunk writes src as one zlib stream at level into dst, which holds
   *dst_len bytes, and sets *dst_len to the stream's length. When planes > 1, src is
   planes byte planes of plane_len bytes each (shuffle's output) followed by any bytes left
   over. Returns Z_OK, Z_BUF_ERROR when the stream does not fit in dst, or Z_MEM_ERROR. */
int chunkpipe_deflate_chunk(chunkpipe_deflater *d, unsigned char *dst, size_t *dst_len,
                          const unsigned char *src, size_t src_len, int level,
                          size_t plane_len, int planes);

/* chunkpipe_plane_is_noise says whether deflate's string matching would not shorten the plane:
   its bytes are nearly uniform and no 4-byte run repeats. Exposed for tests. */
int chunkpipe_plane_is_noise(chunkpipe_deflater *d, const unsigned char *p, size_t n);

#endif
