#!/bin/sh
# Every document the sources and docs send a reader to is in the repository:
# a name ending in .md is a file here (beside the citing file, at the top or
# in docs/), and what it cites inside that file exists:
#   foo.md "Heading", foo.md, "Heading", foo.md ("Heading")
#                        a heading of foo.md that is, or starts with, Heading;
#   foo.md §2.1, foo.md 2.1
#                        a heading of foo.md numbered 2.1 (ours are not
#                        numbered, so such a citation points nowhere);
#   [text](foo.md#anchor)  a heading of foo.md whose link anchor is anchor.
# A "§" with no file (or RFC) before it on its line, "the spec" and any
# path into the shared reference material (shared/spec) fail too.
# Headings inside ``` blocks do not count.
# usage: tests/check-refs.sh [REPO_DIR]  (default: this script's repository)
set -eu
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if ! command -v perl >/dev/null 2>&1; then
	echo "check-refs: skipped: perl is not installed"
	exit 0
fi
cd "$repo"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git ls-files -- src targets tools include tests docs examples Makefile README.md)
else
	files=$(find src targets tools include tests docs examples Makefile README.md -type f)
fi
# Only text that people read: sources, scripts, makefiles and docs.
echo "$files" | grep -E '(\.(c|h|def|in|sh|mk|md|mjs|js|py)|Makefile)$' |
	grep -v -e '^tests/fuzz/corpus/' -e '^tests/check-refs.sh$' | perl -e '
use strict;
use warnings;
my (%heads, $bad, $refs);
$bad = 0; $refs = 0;

sub slug {
	my $s = lc shift;
	$s =~ s/[^\w\- ]//g;
	$s =~ s/ /-/g;
	return $s;
}

# The headings of a markdown file: their text (without #s and backquotes),
# and their link anchors (a repeated one gets -1, -2...).
sub headings {
	my $f = shift;
	return $heads{$f} if $heads{$f};
	my (@text, %anchor, %seen);
	open(my $h, "<", $f) or die "check-refs: $f: $!\n";
	my $fence = 0;
	while (<$h>) {
		if (/^\s*```/) { $fence = !$fence; next; }
		next if $fence || !/^#{1,6}\s+(.*?)\s*#*\s*$/;
		my $t = $1;
		my $a = slug($t);
		my $n = $seen{$a}++;
		$anchor{$n ? "$a-$n" : $a} = 1;
		$t =~ s/`//g;
		push @text, $t;
	}
	close $h;
	return $heads{$f} = { text => \@text, anchor => \%anchor };
}

sub resolve {
	my ($from, $name) = @_;
	my $dir = $from =~ m{^(.*)/} ? $1 : ".";
	for my $c ("$dir/$name", $name, "docs/$name") {
		return $c if -f $c;
	}
	return undef;
}

sub fail {
	my ($where, $what) = @_;
	print "check-refs: $where: $what\n";
	$bad++;
}

sub has_heading {
	my ($h, $q) = @_;
	$q =~ s/`//g;
	for my $t (@{$h->{text}}) {
		return 1 if $t eq $q || (index($t, $q) == 0 && substr($t, length $q, 1) !~ /\w/);
	}
	return 0;
}

sub numbered {
	my ($h, $n) = @_;
	return scalar grep { /^\Q$n\E(?:[.\s]|$)/ } @{$h->{text}};
}

# A line, with the next one appended without its comment marks, so that a
# quoted heading may run on to it.
sub check_line {
	my ($f, $ln, $line, $next) = @_;
	my $where = "$f:$ln";
	$next =~ s{^\s*(?:\*|#|//|;)?\s*}{};
	my $text = $line;
	$text =~ s/\s+$//;
	$text .= " " . $next;
	fail($where, "points into the shared reference material")
		if $line =~ m{shared/spec|\bthe spec\b}i;
	while ($line =~ m{\]\(([^)\s#]*\.md)(?:#([^)\s]*))?\)}g) {
		my ($name, $anchor) = ($1, $2);
		$refs++;
		my $doc = resolve($f, $name);
		if (!$doc) { fail($where, "$name is not in the repository"); next; }
		fail($where, "$name has no heading with anchor #$anchor")
			if defined $anchor && $anchor ne "" && !headings($doc)->{anchor}{$anchor};
	}
	while ($text =~ m{(?<![\w/.\-])((?:[\w.\-]+/)*[\w\-]+\.md)\b}g) {
		my $name = $1;
		my $end = pos($text);
		next if $end > length $line;
		$refs++;
		my $after = substr($text, $end);
		my $doc = resolve($f, $name);
		if (!$doc) { fail($where, "$name is not in the repository"); next; }
		my $h = headings($doc);
		if ($after =~ m{^(?:\x27s)?(?:,\s*|\s*\(\s*|\s+)"([^"]+)"}) {
			fail($where, "$name has no heading \"$1\"") if !has_heading($h, $1);
		} elsif ($after =~ m{^(?:\x27s)?(?:,\s*|\s*\(\s*|\s+)(?:\x{a7}|\xc2\xa7)\s*([\d.]*\d)}) {
			fail($where, "$name has no section $1") if !numbered($h, $1);
		} elsif ($after =~ m{^(?:\x27s)?(?:,\s*|\s*\(\s*|\s+)(\d+(?:\.\d+)*)\b(?![\w%])}) {
			fail($where, "$name has no section $1") if !numbered($h, $1);
		}
	}
	fail($where, "a section sign with no document of this repository before it")
		if $line !~ /\.md\b|\bRFC \d+/ && $line =~ /(?:\x{a7}|\xc2\xa7)\s*\d/;
}

while (my $f = <STDIN>) {
	chomp $f;
	open(my $h, "<", $f) or next;
	my @lines = <$h>;
	close $h;
	for my $i (0 .. $#lines) {
		check_line($f, $i + 1, $lines[$i], $i < $#lines ? $lines[$i + 1] : "");
	}
}
print "check-refs: $refs references, $bad broken\n";
exit($bad ? 1 : 0);
'
