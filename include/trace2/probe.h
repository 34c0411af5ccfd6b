/*
 * User-defined static probes (USDT): points in a program that bpftrace,
 * BCC, SystemTap or perf can attach to while it runs, at the cost of one
 * nop while nobody is attached.  See docs/probes.md.
 *
 *   TRACE2_PROBE(myapp, request_done, id, status);
 *
 *   TRACE2_PROBE_DEFINE_SEMAPHORE(myapp, cache_miss);   (once, file scope)
 *   TRACE2_PROBE_WITH_SEMAPHORE(myapp, cache_miss, key_hash(k), k);
 *
 * A probe takes up to 8 integer or pointer arguments.  A probe with a
 * semaphore evaluates its arguments only while a tracer is attached to
 * it.  Provider and probe names are C identifiers.  Thread rules: none;
 * a probe site reads nothing but its semaphore.
 *
 * The probes are ELF notes of type NT_STAPSDT in the section
 * .note.stapsdt, in the format of SystemTap's <sys/sdt.h> (version 3),
 * written for x86-64 and little-endian aarch64 (GCC or clang, C or
 * C++11 and later).  Elsewhere (another architecture or compiler, or
 * TRACE2_PROBE_OFF defined) a probe compiles to nothing and its arguments
 * are not evaluated.
 */
#ifndef TRACE2_PROBE_H
#define TRACE2_PROBE_H

#if !defined(TRACE2_PROBE_OFF) && defined(__ELF__) && \
	(defined(__GNUC__) || defined(__clang__)) &&                              \
	(defined(__x86_64__) ||                                                    \
	 (defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))
#define TRACE2_PROBE_SUPPORTED 1
#else
#define TRACE2_PROBE_SUPPORTED 0
#endif

/*
 * How an argument reaches the note: an immediate, a memory operand or a
 * register, the compiler's choice.  Define it before including this
 * header if the compiler reports an "impossible constraint in asm" for
 * some argument (as with "nor" for an argument that is a large constant
 * on some compilers); "r" always works, at the cost of a register.
 */
#ifndef TRACE2_PROBE_ARG_CONSTRAINT
#define TRACE2_PROBE_ARG_CONSTRAINT "nor"
#endif

/* The semaphore of a probe: non-zero while a tracer is attached to it. */
#define TRACE2_PROBE_SEMAPHORE_(provider, name) trace2_probe_semaphore_##provider##_##name

/* Define a probe's semaphore, once in the program, at file scope. */
#define TRACE2_PROBE_DEFINE_SEMAPHORE(provider, name)                       \
	volatile unsigned short TRACE2_PROBE_SEMAPHORE_(provider, name)     \
		__attribute__((section(".probes"), used))

/* Declare a semaphore defined in another file. */
#define TRACE2_PROBE_DECLARE_SEMAPHORE(provider, name)                      \
	extern volatile unsigned short TRACE2_PROBE_SEMAPHORE_(provider, name)

/* Non-zero while a tracer is attached to the probe (it has a semaphore). */
#define TRACE2_PROBE_ENABLED(provider, name)                                 \
	__builtin_expect(TRACE2_PROBE_SEMAPHORE_(provider, name) != 0, 0)

/* A probe without a semaphore: its arguments are always evaluated. */
#define TRACE2_PROBE(...) TRACE2_PROBE_AT_("0", __VA_ARGS__)

/* A probe with a semaphore (TRACE2_PROBE_DEFINE_SEMAPHORE): its arguments
 * are evaluated only while a tracer is attached to it. */
#define TRACE2_PROBE_WITH_SEMAPHORE(...)                                     \
	TRACE2_PROBE_GATED_(TRACE2_PROBE_PROVIDER_(__VA_ARGS__, ~),         \
			    TRACE2_PROBE_NAME_(__VA_ARGS__, ~), __VA_ARGS__)

/* ---- Internal: the note.  Not part of the interface. ---- */

#define TRACE2_PROBE_STR_(x) TRACE2_PROBE_STR2_(x)
#define TRACE2_PROBE_STR2_(x) #x
#define TRACE2_PROBE_CAT_(a, b) TRACE2_PROBE_CAT2_(a, b)
#define TRACE2_PROBE_CAT2_(a, b) a##b
#define TRACE2_PROBE_PROVIDER_(provider, ...) provider
#define TRACE2_PROBE_NAME_(provider, name, ...) name

#define TRACE2_PROBE_GATED_(provider, name, ...)                             \
	do {                                                                 \
		if (TRACE2_PROBE_ENABLED(provider, name))                    \
			TRACE2_PROBE_AT_(TRACE2_PROBE_STR_(                  \
				TRACE2_PROBE_SEMAPHORE_(provider, name)),    \
				__VA_ARGS__);                                \
	} while (0)

/*
 * TRACE2_PROBE_AT_(sema, provider, name, args...): a probe whose note
 * names the semaphore as the assembler expression sema ("0" for none).
 * The project's tests define it before including this header, as
 * <sys/sdt.h>'s STAP_PROBEV, to compare the notes with SystemTap's.
 */
#if TRACE2_PROBE_SUPPORTED && !defined(TRACE2_PROBE_AT_)

/* Argument count of (semaphore, provider, name, args...). */
#define TRACE2_PROBE_COUNT_(...)                                             \
	TRACE2_PROBE_PICK_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define TRACE2_PROBE_PICK_(s, p, n, a1, a2, a3, a4, a5, a6, a7, a8, count, ...) count

#define TRACE2_PROBE_AT_(...)                                                \
	TRACE2_PROBE_CAT_(TRACE2_PROBE_ARGS_, TRACE2_PROBE_COUNT_(__VA_ARGS__))(__VA_ARGS__)

/*
 * An argument's description is "<size>@<operand>", the size negative for
 * a signed integer; a pointer or array is an unsigned address.  The
 * operand size code is printed negated (%n) with no immediate prefix.
 */
#ifdef __cplusplus
/* C++ has no __builtin_choose_expr: the argument's type decides, through
 * templates (references and cv-qualifiers removed; arrays and pointers
 * are addresses; only a signed integer type is signed, an enum is not). */
#include <type_traits>
template <typename T> struct trace2_probe_arg_ {
	static const bool addr = false;
	static const bool is_signed = std::is_integral<T>::value && std::is_signed<T>::value;
};
template <typename T> struct trace2_probe_arg_<T *> {
	static const bool addr = true;
	static const bool is_signed = false;
};
template <typename T, decltype(sizeof(0)) N> struct trace2_probe_arg_<T[N]> : trace2_probe_arg_<T *> {};
#define TRACE2_PROBE_TYPE_(x)                                                 \
	trace2_probe_arg_<std::remove_cv<std::remove_reference<decltype(x)>::type>::type>
#define TRACE2_PROBE_IS_ADDR_(x) (TRACE2_PROBE_TYPE_(x)::addr)
#define TRACE2_PROBE_SIGNED_(x) (TRACE2_PROBE_TYPE_(x)::is_signed)
#else
#define TRACE2_PROBE_IS_ADDR_(x)                                              \
	(__builtin_classify_type(x) == 5 || __builtin_classify_type(x) == 14)
#define TRACE2_PROBE_INT_TYPE_(x)                                             \
	__typeof__(__builtin_choose_expr(((__builtin_classify_type(x) + 3) & -4) == 4, \
					 (x), 0U))
#define TRACE2_PROBE_SIGNED_(x)                                               \
	(!TRACE2_PROBE_IS_ADDR_(x) &&                                         \
	 !((TRACE2_PROBE_INT_TYPE_(x))-1 > (TRACE2_PROBE_INT_TYPE_(x))0))
#endif
#define TRACE2_PROBE_SIZE_(x)                                                 \
	((int)(TRACE2_PROBE_IS_ADDR_(x) ? sizeof(void *) : sizeof(x)))
#define TRACE2_PROBE_OP_(i, x)                                                \
	[trace2_s##i] "n"(TRACE2_PROBE_SIGNED_(x) ? TRACE2_PROBE_SIZE_(x)     \
						   : -TRACE2_PROBE_SIZE_(x)), \
	[trace2_a##i] TRACE2_PROBE_ARG_CONSTRAINT(x)
#define TRACE2_PROBE_FMT_(i) "%n[trace2_s" #i "]@%[trace2_a" #i "]"

#define TRACE2_PROBE_NOTE_(sema, provider, name, fmt, ...)                   \
	__asm__ __volatile__(                                                \
		"990: nop\n"                                                 \
		".pushsection .note.stapsdt,\"?\",\"note\"\n"                \
		".balign 4\n"                                                \
		".4byte 992f-991f, 994f-993f, 3\n"                           \
		"991: .asciz \"stapsdt\"\n"                                  \
		"992: .balign 4\n"                                           \
		"993: .8byte 990b\n"                                         \
		".8byte _.stapsdt.base\n"                                    \
		".8byte " sema "\n"                                          \
		".asciz \"" #provider "\"\n"                                 \
		".asciz \"" #name "\"\n"                                     \
		".asciz \"" fmt "\"\n"                                       \
		"994: .balign 4\n"                                           \
		".popsection\n"                                              \
		".ifndef _.stapsdt.base\n"                                   \
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		".weak _.stapsdt.base\n"                                     \
		".hidden _.stapsdt.base\n"                                   \
		"_.stapsdt.base: .space 1\n"                                 \
		".size _.stapsdt.base, 1\n"                                  \
		".popsection\n"                                              \
		".endif\n"                                                   \
		: : __VA_ARGS__)

#define TRACE2_PROBE_ARGS_0(s, p, n) TRACE2_PROBE_NOTE_(s, p, n, "", )
#define TRACE2_PROBE_ARGS_1(s, p, n, a1)                                     \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1), TRACE2_PROBE_OP_(1, a1))
#define TRACE2_PROBE_ARGS_2(s, p, n, a1, a2)                                 \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1) " " TRACE2_PROBE_FMT_(2), \
			   TRACE2_PROBE_OP_(1, a1), TRACE2_PROBE_OP_(2, a2))
#define TRACE2_PROBE_ARGS_3(s, p, n, a1, a2, a3)                             \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1) " " TRACE2_PROBE_FMT_(2) " " \
			   TRACE2_PROBE_FMT_(3),                             \
			   TRACE2_PROBE_OP_(1, a1), TRACE2_PROBE_OP_(2, a2), \
			   TRACE2_PROBE_OP_(3, a3))
#define TRACE2_PROBE_ARGS_4(s, p, n, a1, a2, a3, a4)                         \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1) " " TRACE2_PROBE_FMT_(2) " " \
			   TRACE2_PROBE_FMT_(3) " " TRACE2_PROBE_FMT_(4),    \
			   TRACE2_PROBE_OP_(1, a1), TRACE2_PROBE_OP_(2, a2), \
			   TRACE2_PROBE_OP_(3, a3), TRACE2_PROBE_OP_(4, a4))
#define TRACE2_PROBE_ARGS_5(s, p, n, a1, a2, a3, a4, a5)                     \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1) " " TRACE2_PROBE_FMT_(2) " " \
			   TRACE2_PROBE_FMT_(3) " " TRACE2_PROBE_FMT_(4) " " \
			   TRACE2_PROBE_FMT_(5),                             \
			   TRACE2_PROBE_OP_(1, a1), TRACE2_PROBE_OP_(2, a2), \
			   TRACE2_PROBE_OP_(3, a3), TRACE2_PROBE_OP_(4, a4), \
			   TRACE2_PROBE_OP_(5, a5))
#define TRACE2_PROBE_ARGS_6(s, p, n, a1, a2, a3, a4, a5, a6)                 \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1) " " TRACE2_PROBE_FMT_(2) " " \
			   TRACE2_PROBE_FMT_(3) " " TRACE2_PROBE_FMT_(4) " " \
			   TRACE2_PROBE_FMT_(5) " " TRACE2_PROBE_FMT_(6),    \
			   TRACE2_PROBE_OP_(1, a1), TRACE2_PROBE_OP_(2, a2), \
			   TRACE2_PROBE_OP_(3, a3), TRACE2_PROBE_OP_(4, a4), \
			   TRACE2_PROBE_OP_(5, a5), TRACE2_PROBE_OP_(6, a6))
#define TRACE2_PROBE_ARGS_7(s, p, n, a1, a2, a3, a4, a5, a6, a7)             \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1) " " TRACE2_PROBE_FMT_(2) " " \
			   TRACE2_PROBE_FMT_(3) " " TRACE2_PROBE_FMT_(4) " " \
			   TRACE2_PROBE_FMT_(5) " " TRACE2_PROBE_FMT_(6) " " \
			   TRACE2_PROBE_FMT_(7),                             \
			   TRACE2_PROBE_OP_(1, a1), TRACE2_PROBE_OP_(2, a2), \
			   TRACE2_PROBE_OP_(3, a3), TRACE2_PROBE_OP_(4, a4), \
			   TRACE2_PROBE_OP_(5, a5), TRACE2_PROBE_OP_(6, a6), \
			   TRACE2_PROBE_OP_(7, a7))
#define TRACE2_PROBE_ARGS_8(s, p, n, a1, a2, a3, a4, a5, a6, a7, a8)         \
	TRACE2_PROBE_NOTE_(s, p, n, TRACE2_PROBE_FMT_(1) " " TRACE2_PROBE_FMT_(2) " " \
			   TRACE2_PROBE_FMT_(3) " " TRACE2_PROBE_FMT_(4) " " \
			   TRACE2_PROBE_FMT_(5) " " TRACE2_PROBE_FMT_(6) " " \
			   TRACE2_PROBE_FMT_(7) " " TRACE2_PROBE_FMT_(8),    \
			   TRACE2_PROBE_OP_(1, a1), TRACE2_PROBE_OP_(2, a2), \
			   TRACE2_PROBE_OP_(3, a3), TRACE2_PROBE_OP_(4, a4), \
			   TRACE2_PROBE_OP_(5, a5), TRACE2_PROBE_OP_(6, a6), \
			   TRACE2_PROBE_OP_(7, a7), TRACE2_PROBE_OP_(8, a8))

#elif !defined(TRACE2_PROBE_AT_)

#define TRACE2_PROBE_AT_(...) ((void)0)

#endif

#endif
