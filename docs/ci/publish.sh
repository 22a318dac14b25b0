#!/bin/sh
# Build a podium leaderboard and publish it to any static host. See docs/publishing.md.
#
#   EXPORT=export SITE=site PUBLISH_TO=... sh docs/ci/publish.sh
#
# PUBLISH_TO picks the host by its form:
#   /srv/www/leaderboard           a local directory (mounted volume, web server root)
#   user@host:/srv/www/leaderboard rsync over ssh
#   s3://bucket/prefix             aws s3 sync (AWS, or any S3-compatible store with AWS_ENDPOINT_URL)
#   rclone:remote:path             rclone sync (any rclone remote)
# Optional: PODIUM (the podium command; default "podium"), PODIUM_ARGS (extra build
# flags, e.g. "--config podium.yaml"), PREVIOUS_SUMMARY_URL (the published
# summary.json, https://…/api/results/summary.json; with the agents' parts beside it, its
# change report is printed, and appended to $GITHUB_STEP_SUMMARY when that is set),
# DRY_RUN=1 (build, then only print the publish command).
set -eu

EXPORT=${EXPORT:-export}
SITE=${SITE:-site}
PODIUM=${PODIUM:-podium}
PODIUM_ARGS=${PODIUM_ARGS:-}
: "${PUBLISH_TO:?set PUBLISH_TO to a directory, user@host:/path, s3://bucket/prefix or rclone:remote:path}"

# On GitHub Actions the runner reads workflow commands (`::add-mask::…`) from a step's output, and
# podium's output quotes file names and values from the export and the previous summary: between
# these two, no command is read from it (stop-commands with a random token, then resume).
stop_commands() {
    if [ "${GITHUB_ACTIONS:-}" = true ]; then
        token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
        echo "::stop-commands::$token"
    fi
}
resume_commands() {
    if [ -n "${token:-}" ]; then echo "::$token::"; token=; fi
}

stop_commands
# shellcheck disable=SC2086  # PODIUM and PODIUM_ARGS are word lists on purpose
$PODIUM build "$EXPORT" --out "$SITE" $PODIUM_ARGS
resume_commands

# https only (redirects too), at most 64 MiB a file (podium reads no more), two minutes a file.
fetch() {  # URL FILE
    curl -fsSL --proto '=https' --proto-redir '=https' --max-redirs 5 --connect-timeout 20 --max-time 120 \
        --max-filesize 67108864 "$1" -o "$2"
}

# The slugs of a summary in parts (podium.summary/2): each agent's, in both scopes, once; read with jq, or
# python3 without it. The index is the published site's, so untrusted: only a slug podium makes
# ([a-z0-9][a-z0-9-]{0,99}, no "/" nor "..") makes a path, and at most PARTS_MAX of them.
PARTS_MAX=10000
PARTS_SECONDS=${PARTS_SECONDS:-600}  # all the parts together: a host that drips bytes cannot hold the publish
part_slugs() {  # SUMMARY (nothing when it is not such an index: podium says what is wrong with it)
    if command -v jq >/dev/null 2>&1; then
        jq -r 'select(type == "object" and .schema == "podium.summary/2")
            | (.agents, .agents_older) | arrays | .[] | objects | .slug | strings
            | select(test("^[a-z0-9][a-z0-9-]{0,99}$"))' "$1" 2>/dev/null
    else
        python3 -c 'import json, re, sys
index = json.load(open(sys.argv[1], encoding="utf-8"))
if isinstance(index, dict) and index.get("schema") == "podium.summary/2":
    for scope in ("agents", "agents_older"):
        entries = index.get(scope)
        for entry in entries if isinstance(entries, list) else ():
            slug = entry.get("slug") if isinstance(entry, dict) else None
            if isinstance(slug, str) and re.fullmatch("[a-z0-9][a-z0-9-]{0,99}", slug):
                print(slug)' "$1" 2>/dev/null
    fi
}

# Each agent's part beside the summary (summary/agents/<slug>.json, as the site holds them): what the
# change report counts new runs per mission version from. One not fetched is left out, and podium says
# whose rows its report leaves out; the publish goes on.
fetch_parts() {  # SUMMARY_URL FOLDER (holding summary.json)
    url=${1%%[?#]*}
    case "$url" in
        */summary.json) base=${url%/summary.json} ;;
        *) echo "publish.sh: $1 is not named summary.json: the agents' parts beside it are not fetched"; return 0 ;;
    esac
    if ! command -v jq >/dev/null 2>&1 && ! command -v python3 >/dev/null 2>&1; then
        echo "publish.sh: neither jq nor python3 here to read the summary: the agents' parts are not fetched"
        return 0
    fi
    slugs=$(part_slugs "$2/summary.json" | LC_ALL=C grep -E '^[a-z0-9][a-z0-9-]{0,99}$' | LC_ALL=C sort -u) || true
    [ -n "$slugs" ] || return 0
    count=$(printf '%s\n' "$slugs" | wc -l | tr -d ' ')
    if [ "$count" -gt "$PARTS_MAX" ]; then
        echo "publish.sh: the summary names $count agents' parts, more than $PARTS_MAX: none is fetched"
        return 0
    fi
    mkdir -p "$2/summary/agents"
    until=$(( $(date +%s) + PARTS_SECONDS ))
    for slug in $slugs; do
        if [ "$(date +%s)" -ge "$until" ]; then
            echo "publish.sh: the agents' parts took over $PARTS_SECONDS s: the rest are not fetched"
            return 0
        fi
        fetch "$base/summary/agents/$slug.json" "$2/summary/agents/$slug.json" || rm -f "$2/summary/agents/$slug.json"
    done
}

if [ -n "${PREVIOUS_SUMMARY_URL:-}" ]; then
    previous=$(mktemp -d)
    if fetch "$PREVIOUS_SUMMARY_URL" "$previous/summary.json"; then
        fetch_parts "$PREVIOUS_SUMMARY_URL" "$previous"
        stop_commands
        # shellcheck disable=SC2086
        report=$($PODIUM diff "$previous/summary.json" "$SITE/api/results/summary.json" || true)
        printf '%s\n' "$report"
        resume_commands
        if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$report" >> "$GITHUB_STEP_SUMMARY"; fi
    else
        echo "publish.sh: no previous summary at $PREVIOUS_SUMMARY_URL (first publish?)"
    fi
    rm -rf "$previous"
fi

run() {
    echo "publish.sh: $*"
    if [ "${DRY_RUN:-0}" = 1 ]; then return 0; fi
    "$@"
}

case "$PUBLISH_TO" in
    s3://*)
        # Pages first would briefly link to data not yet there; sync data, then everything, then prune.
        run aws s3 sync "$SITE/" "$PUBLISH_TO" --exclude "*.html"
        run aws s3 sync "$SITE/" "$PUBLISH_TO" --delete
        ;;
    rclone:*)
        run rclone sync "$SITE/" "${PUBLISH_TO#rclone:}"
        ;;
    *)
        case "$PUBLISH_TO" in
            *:*) ;;  # user@host:/path: rsync is required
            *) mkdir -p "$PUBLISH_TO" ;;
        esac
        if command -v rsync >/dev/null 2>&1; then
            # --delay-updates: files appear together at the end; --delete-after: old pages go last
            run rsync -a --delete-after --delay-updates --exclude .podium-site "$SITE/" "$PUBLISH_TO/"
        else
            case "$PUBLISH_TO" in
                *:*) echo "publish.sh: rsync is needed to publish to $PUBLISH_TO" >&2; exit 2 ;;
            esac
            # No rsync: copy into a fresh directory beside the target, then swap it in.
            parent=$(dirname "$PUBLISH_TO")
            fresh="$parent/.publish-new.$$"
            old="$parent/.publish-old.$$"
            run mkdir -p "$fresh"
            run cp -a "$SITE/." "$fresh/"
            rm -f "$fresh/.podium-site"
            run mv "$PUBLISH_TO" "$old"
            run mv "$fresh" "$PUBLISH_TO"
            run rm -rf "$old"
        fi
        ;;
esac
echo "publish.sh: published $SITE to $PUBLISH_TO"
