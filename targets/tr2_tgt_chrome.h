/*
 * The CHROME target (GIT_TRACE2_CHROME): the Chrome Trace Event Format,
 * JSON array form, one event per line (docs/targets.md, "Chrome").
 * ctx: a struct tr2_tgt_chrome.
 */
#ifndef TR2_TGT_CHROME_H
#define TR2_TGT_CHROME_H

#include "tr2_plat.h"

#include "tr2_replay.h"
#include "tr2_tgt.h"

/* Regions open at once on one thread that get slices; deeper ones are
 * left out, their enter and their leave (docs/targets.md). */
#define TR2_CHROME_DEPTH 32
/* Their slots are allocated this many at a time, as a thread goes deeper. */
#define TR2_CHROME_CHUNK 4
/* Bytes kept of a slice's name, category and message (cut on a UTF-8
 * boundary). */
#define TR2_CHROME_NAME_MAX 80
#define TR2_CHROME_CAT_MAX 32
#define TR2_CHROME_MSG_MAX 128
/* A thread's name as JSON (a longer one is not kept). */
#define TR2_CHROME_THREAD_JSON_MAX 160
/* Bytes kept of the SID and version text for the process slice. */
#define TR2_CHROME_SID_MAX 512
/* Children started and not yet exited whose command line is kept (the
 * table grows to it as children run at once). */
#define TR2_CHROME_CHILDREN 64
#define TR2_CHROME_ARGV_MAX 160
/* The process name's parts (argv[0]'s base name, command, mode). */
#define TR2_CHROME_PART_MAX 64
/* Synthetic thread ids of the children's tracks: this plus the child id. */
#define TR2_CHROME_CHILD_TID 1000000

/* An open region, written as a complete (X) slice when it ends. */
struct tr2_chrome_slice {
	char name[TR2_CHROME_NAME_MAX];
	char cat[TR2_CHROME_CAT_MAX];
	char msg[TR2_CHROME_MSG_MAX];
	int has_msg;
	int repo_id;
	uint64_t start_us;
};

/* One traced thread's open slices; threads take one at their first
 * event and give it back at thread_exit.  The slots of levels 1 to
 * TR2_CHROME_DEPTH come in chunks allocated when a region first reaches
 * them and kept until the state ends (a signal handler on another thread
 * may be reading them). */
struct tr2_chrome_thread {
	struct tr2_chrome_thread *next; /* the list never shrinks */
	const void *owner;              /* the ctx that handed it out */
	unsigned gen;                   /* the open() it belongs to */
	int in_use;                     /* atomic */
	int tid;
	size_t depth;                   /* atomic: regions open (may exceed
					 * TR2_CHROME_DEPTH) */
	char json_name[TR2_CHROME_THREAD_JSON_MAX]; /* for a new file */
	size_t json_name_len;
	struct tr2_chrome_slice *chunks[TR2_CHROME_DEPTH / TR2_CHROME_CHUNK];
};

struct tr2_chrome_child {
	int used;
	int id;
	char argv[TR2_CHROME_ARGV_MAX];
	char child_class[TR2_CHROME_CAT_MAX];
};

struct tr2_tgt_chrome {
	struct tr2_tgt_state base;
	int own_file;        /* a file of its own in a directory: closed with ']' */
	long pid;
	unsigned gen;
	int main_tid;
	int process_open;    /* atomic: the whole-process slice is open */
	uint64_t process_us; /* its start (version) */
	char sid[TR2_CHROME_SID_MAX];
	char version[TR2_CHROME_PART_MAX];
	/* How a child is linked to its parent by a flow (docs/targets.md):
	 * 0, live: by the parent's SID and the child's command line, the
	 * flow's start at child_start, its end at the child's start; 1, a
	 * converter that knows the child's pid from child_exit: by the
	 * parent's SID and that pid, the start at child_exit, the end at
	 * version. */
	int link_by_pid;
	int linked;          /* the child's end of its flow is written */
	unsigned file_gen;   /* atomic: the destination's file (reopen) that
			      * has this process's context */
	int closed;          /* atomic: the trace is finished (atexit, signal) */
	int replay;          /* one thread hands in the records of many (a
			      * converter, deferred mode); slots go by the
			      * record's thread, not the calling one */
	struct tr2_chrome_thread *threads; /* atomic head */
	tr2_mutex lock; /* the process name and the children */
	char argv0[TR2_CHROME_PART_MAX];
	char cmd[TR2_CHROME_PART_MAX];
	char mode[TR2_CHROME_PART_MAX];
	struct tr2_chrome_child *children; /* n_children slots, under lock */
	size_t n_children;
};

extern const struct trace2_target tr2_tgt_chrome;

/* For a program replaying records (trace2 convert): the end of a trace
 * that had no atexit closes its open slices without an exit code. */
extern const struct tr2_replay_ops tr2_tgt_chrome_replay;

#endif
