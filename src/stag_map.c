/* STag index map: open addressing with linear probing and backward-shift
 * deletion, keyed by the 24-bit STag index (RFC 5040 §8.1.1 recommends
 * sparse, hard to predict STags; the index is random, see stag.c). */
#include <stdlib.h>

#include "alloc.h"
#include "core.h"

static uint32_t hash_index(uint32_t index)
{
	uint32_t h = index * 0x9E3779B1u;
	return h ^ (h >> 15);
}

int stag_map_init(struct stag_map *m, uint32_t cap)
{
	uint32_t c = 16;
	while (c < cap)
		c <<= 1;
	m->slot = ddp_calloc_(c, sizeof(*m->slot));
	if (!m->slot)
		return DDP_ERR_NOMEM;
	m->cap = c;
	m->used = 0;
	return 0;
}

void stag_map_free(struct stag_map *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->used = 0;
}

struct ddp_mr *stag_map_get(const struct stag_map *m, uint32_t index)
{
	uint32_t mask = m->cap - 1;
	for (uint32_t i = hash_index(index) & mask;; i = (i + 1) & mask) {
		struct ddp_mr *mr = m->slot[i];
		if (!mr)
			return NULL;
		if ((mr->stag >> 8) == index)
			return mr;
	}
}

static int grow(struct stag_map *m)
{
	struct stag_map n;
	if (stag_map_init(&n, m->cap * 2))
		return DDP_ERR_NOMEM;
	for (uint32_t i = 0; i < m->cap; i++) {
		struct ddp_mr *mr = m->slot[i];
		if (!mr)
			continue;
		uint32_t mask = n.cap - 1, j = hash_index(mr->stag >> 8) & mask;
		while (n.slot[j])
			j = (j + 1) & mask;
		n.slot[j] = mr;
		n.used++;
	}
	free(m->slot);
	*m = n;
	return 0;
}

int stag_map_put(struct stag_map *m, struct ddp_mr *mr)
{
	if ((m->used + 1) * 2 > m->cap && grow(m))
		return DDP_ERR_NOMEM;
	uint32_t mask = m->cap - 1, i = hash_index(mr->stag >> 8) & mask;
	while (m->slot[i])
		i = (i + 1) & mask;
	m->slot[i] = mr;
	m->used++;
	return 0;
}

void stag_map_del(struct stag_map *m, uint32_t index)
{
	uint32_t mask = m->cap - 1, i = hash_index(index) & mask;
	while (m->slot[i] && (m->slot[i]->stag >> 8) != index)
		i = (i + 1) & mask;
	if (!m->slot[i])
		return;
	m->slot[i] = NULL;
	m->used--;
	/* backward shift: re-seat every entry of the cluster after the hole */
	for (uint32_t j = (i + 1) & mask; m->slot[j]; j = (j + 1) & mask) {
		struct ddp_mr *mr = m->slot[j];
		uint32_t home = hash_index(mr->stag >> 8) & mask;
		/* move mr into the hole at i if its home is not in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slot[i] = mr;
			m->slot[j] = NULL;
			i = j;
		}
	}
}
