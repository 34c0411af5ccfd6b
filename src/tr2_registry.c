#include "tr2_registry.h"
#include "tr2_sysenv.h"
#include "tr2_tgt_normal.h"
#include "tr2_tgt_perf.h"
#include "tr2_tgt_event.h"
#include "tr2_tgt_chrome.h"
#include "tr2_tgt_record.h"
#include "tr2_tgt_stats.h"

#include <errno.h>
#include <string.h>

static struct tr2_slot slots[TRACE2_TARGETS_MAX];
static int nslots;
struct tr2_slot *tr2_registry_active[TRACE2_TARGETS_MAX];
int tr2_registry_nactive;
struct tr2_slot *tr2_registry_lane;

static struct tr2_tgt_state normal_state, perf_state, event_state;
static struct tr2_tgt_chrome chrome_state;
static struct tr2_tgt_record record_state;
static struct tr2_tgt_stats stats_state;
static const struct {
	const struct trace2_target *target;
	void *ctx;
} builtins[] = {
	{ &tr2_tgt_normal, &normal_state },
	{ &tr2_tgt_perf, &perf_state },
	{ &tr2_tgt_event, &event_state },
	{ &tr2_tgt_chrome, &chrome_state },
	{ &tr2_tgt_record, &record_state },
	{ &tr2_tgt_stats, &stats_state },
};

static int add_target(const struct trace2_target *t, void *ctx, int builtin)
{
	struct tr2_slot *s = &slots[nslots];

	if (nslots == TRACE2_TARGETS_MAX)
		return ENOSPC;
	s->dst_setting = s->brief_setting = -1;
	if (t->setting) {
		if (tr2_sysenv_add_target(t->setting, builtin, &s->dst_setting,
					  &s->brief_setting))
			return EINVAL;
		tr2_dst_init(&s->dst, s->dst_setting);
	}
	s->target = t;
	s->ctx = ctx;
	s->event = t->event;
	s->on = 0;
	s->guarded = !builtin;
	nslots++;
	return 0;
}

void tr2_registry_add_builtins(void)
{
	size_t i;

	if (nslots)
		return;
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		add_target(builtins[i].target, builtins[i].ctx, 1);
}

/* [a-z][a-z0-9]*, short enough for the settings' names. */
static int valid_name(const char *s)
{
	size_t i;

	if (!s || !(*s >= 'a' && *s <= 'z'))
		return 0;
	for (i = 1; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return i < 32;
}

/* A target's name or setting that some target or setting already has:
 * GIT_TRACE2_<NAME> or trace2.<name>. */
static int name_taken(const char *name)
{
	char upper[32];
	int i;

	for (i = 0; i < nslots; i++)
		if (!strcmp(slots[i].target->name, name) ||
		    (slots[i].target->setting && !strcmp(slots[i].target->setting, name)))
			return 1;
	for (i = 0; name[i]; i++)
		if (name[i] >= 'a' && name[i] <= 'z')
			upper[i] = (char)(name[i] - 'a' + 'A');
		else
			upper[i] = name[i];
	upper[i] = '\0';
	return tr2_sysenv_env_taken(upper) || tr2_sysenv_id_of_config_key(name) >= 0;
}

static int check_target(const struct trace2_target *t)
{
	if (!t || t->abi_version != TRACE2_TARGET_ABI_VERSION || !t->event ||
	    (t->setting && !t->open))
		return EINVAL;
	if (!valid_name(t->name) || name_taken(t->name))
		return EINVAL;
	if (t->setting && (!valid_name(t->setting) || name_taken(t->setting)))
		return EINVAL;
	return 0;
}

int tr2_registry_add(const struct trace2_target *target, void *ctx)
{
	int err = check_target(target);

	return err ? err : add_target(target, ctx, 0);
}

/* Open a target's destination and the target; 1 if it is on. */
static int open_target(struct tr2_slot *s)
{
	struct trace2_target_config config = { NULL, 0, 1, 0 };

	if (s->dst_setting >= 0) {
		if (!tr2_dst_open(&s->dst, !!(s->target->flags & TRACE2_TARGET_WANTS_CREATED)))
			return 0;
		config.output = tr2_output_of(&s->dst);
		config.brief = tr2_sysenv_bool(s->brief_setting, 0);
		config.created = s->dst.created;
	}
	config.deferred = tr2_sysenv_bool(TR2_SYSENV_DEFERRED, 0);
	if (s->target->open && s->target->open(s->ctx, &config)) {
		if (s->dst_setting >= 0)
			tr2_dst_close(&s->dst);
		return 0;
	}
	__atomic_store_n(&s->on, 1, __ATOMIC_RELEASE);
	return 1;
}

int tr2_registry_open(void)
{
	int i;

	tr2_registry_nactive = 0;
	tr2_registry_lane = NULL;
	for (i = 0; i < nslots; i++)
		if (open_target(&slots[i]))
			tr2_registry_active[tr2_registry_nactive++] = &slots[i];
	if (tr2_registry_nactive == 1 && !tr2_registry_active[0]->guarded)
		tr2_registry_lane = tr2_registry_active[0];
	return tr2_registry_nactive;
}

void tr2_registry_close(void)
{
	int i;

	tr2_registry_nactive = 0;
	tr2_registry_lane = NULL;
	for (i = 0; i < nslots; i++) {
		__atomic_store_n(&slots[i].on, 0, __ATOMIC_RELEASE);
		if (slots[i].dst_setting >= 0) {
			tr2_dst_close(&slots[i].dst);
			tr2_dst_forget(&slots[i].dst);
		}
	}
}

void tr2_registry_switch_off(const void *dst)
{
	int i;

	for (i = 0; i < nslots; i++)
		if (&slots[i].dst == dst)
			__atomic_store_n(&slots[i].on, 0, __ATOMIC_RELEASE);
}

void tr2_registry_flush(int from_signal)
{
	int i;

	if (from_signal) {
		tr2_dst_flush_from_signal();
		return;
	}
	tr2_dst_flush_all();
	for (i = 0; i < nslots; i++)
		if (slots[i].target->flush && __atomic_load_n(&slots[i].on, __ATOMIC_ACQUIRE))
			slots[i].target->flush(slots[i].ctx);
}

void tr2_registry_shutdown(void)
{
	int i;

	for (i = 0; i < nslots; i++)
		if (slots[i].target->shutdown && __atomic_load_n(&slots[i].on, __ATOMIC_ACQUIRE))
			slots[i].target->shutdown(slots[i].ctx);
	tr2_dst_flush_all(); /* what they wrote (buffered mode) goes out now */
}

void tr2_registry_reopen(void)
{
	int i;

	for (i = 0; i < nslots; i++)
		if (slots[i].dst_setting >= 0)
			tr2_dst_reopen(&slots[i].dst);
}

void tr2_registry_after_fork(void)
{
	int i;

	for (i = 0; i < nslots; i++)
		if (slots[i].dst_setting >= 0)
			tr2_dst_after_fork(&slots[i].dst);
}

int tr2_registry_too_many_files(const struct tr2_slot *out[TRACE2_TARGETS_MAX])
{
	int i, n = 0;

	for (i = 0; i < nslots; i++)
		if (slots[i].dst_setting >= 0 && slots[i].dst.too_many_files &&
		    __atomic_load_n(&slots[i].on, __ATOMIC_RELAXED))
			out[n++] = &slots[i];
	return n;
}
