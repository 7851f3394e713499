/* Guard-page buffers (see guardbuf.h). */
#include "guardbuf.h"

#include <sys/mman.h>
#include <unistd.h>

int guardbuf_new(guardbuf *g, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (len + pg - 1) / pg;
	g->map_len = (pages + 2) * pg;
	g->map = mmap(NULL, g->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		return -1;
	if (mprotect(g->map + pg, pages * pg, PROT_READ | PROT_WRITE) != 0) {
		munmap(g->map, g->map_len);
		return -1;
	}
	g->len = len;
	g->p = g->map + pg + pages * pg - len; /* flush against the upper guard */
	return 0;
}

int guardbuf_protect(guardbuf *g, int writable)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	return mprotect(g->map + pg, g->map_len - 2 * pg,
			writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

void guardbuf_free(guardbuf *g)
{
	if (g->map && g->map != MAP_FAILED)
		munmap(g->map, g->map_len);
	g->map = NULL;
}
