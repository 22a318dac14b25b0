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
# summary.json; its change report is printed, and appended to $GITHUB_STEP_SUMMARY
# when that is set), DRY_RUN=1 (build, then only print the publish command).
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

if [ -n "${PREVIOUS_SUMMARY_URL:-}" ]; then
    previous=$(mktemp)
    # https only (redirects too), at most 64 MiB (podium reads no more), two minutes at most.
    if curl -fsSL --proto '=https' --proto-redir '=https' --max-redirs 5 --connect-timeout 20 --max-time 120 \
        --max-filesize 67108864 "$PREVIOUS_SUMMARY_URL" -o "$previous"; then
        stop_commands
        # shellcheck disable=SC2086
        report=$($PODIUM diff "$previous" "$SITE/api/results/summary.json" || true)
        printf '%s\n' "$report"
        resume_commands
        if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$report" >> "$GITHUB_STEP_SUMMARY"; fi
    else
        echo "publish.sh: no previous summary at $PREVIOUS_SUMMARY_URL (first publish?)"
    fi
    rm -f "$previous"
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
