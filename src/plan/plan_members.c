/*
 * plan_members: struct plan's fields as a table and as an equality, both
 * generated from PLAN_MEMBERS (plan.h), the rows struct plan itself is
 * generated from: what walks every field of a plan (a cache's key, a
 * test that varies each field) covers a new one without a list to keep.
 */
#include "plan.h"

#include <stddef.h>

const struct plan_member *plan_members(size_t *n)
{
#define PLAN_MEMBER_ROW(type, name) \
    {#name, #type, offsetof(struct plan, name), sizeof(type)},
    static const struct plan_member rows[] = {PLAN_MEMBERS(PLAN_MEMBER_ROW)};
#undef PLAN_MEMBER_ROW
    *n = sizeof rows / sizeof rows[0];
    return rows;
}

bool plan_same(const struct plan *a, const struct plan *b)
{
#define PLAN_MEMBER_SAME(type, name) a->name == b->name &&
    return PLAN_MEMBERS(PLAN_MEMBER_SAME) true;
#undef PLAN_MEMBER_SAME
}
