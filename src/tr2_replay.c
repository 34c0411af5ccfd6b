#include "tr2_replay.h"
#include "tr2_tgt.h"

int tr2_replay_open(const struct trace2_target *target, void *ctx, struct tr2_dst *dst,
		    int brief, int created)
{
	struct trace2_target_config config;

	memset(&config, 0, sizeof(config));
	config.output = tr2_output_of(dst);
	config.brief = brief;
	config.created = created;
	return target->open(ctx, &config);
}
