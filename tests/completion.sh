# gpuimg tests: shell completion (completion/gpuimg for bash, completion/_gpuimg for zsh, which
# make install puts where each shell looks), typed into a real interactive shell through a
# pseudo-terminal (tests/pty_complete.py): a partial command and TAB, then what the line became,
# or TAB TAB and what was listed. bash with the script sourced, bash with the bash-completion
# package loading it from its completions folder (where the package is installed), zsh through
# compinit (where zsh is installed). The choices and keys listed are read from the binary's own
# --list=completion. COMPLETION_DIR tries other scripts (git show HEAD:completion/...).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
S=${TOP_SRCDIR:-.}
S=$(cd "$S" && pwd)
C=${COMPLETION_DIR:-$S/completion}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
BIN=$(cd "$(dirname "$GPUIMG")" && pwd)
"$BIN/gpuimg" --list=completion >"$T/table" || { bad "gpuimg --list=completion fails"; finish; exit; }
# choices OP KEY / keys OP [LEFT_OUT...]: from the table
choices() { awk -F'\t' -v o="$1" -v k="$2" '$1 == "parameter" && $2 == o && $3 == k { print $5 }' "$T/table"; }
keys() {
    o=$1
    shift
    awk -F'\t' -v o="$o" -v out=" $* " '$1 == "parameter" && $2 == o && index(out, " " $3 " ") == 0 { printf "%s= ", $3 }' "$T/table"
}
option_words() { awk -F'\t' -v n="$1" '$1 == "option" && $2 == n { print $4 }' "$T/table"; }

cd "$T" || exit 1
mkdir dir
: >photo.png
# insert|TYPED|THE LINE AFTER TAB| and list|TYPED|WHAT TAB TAB LISTS| (a trailing blank counts)
cat >cases <<EOF
insert|gpuimg --backend=c|gpuimg --backend=cpu |
list|gpuimg --backend=|$(option_words --backend)|
insert|gpuimg --backend c|gpuimg --backend cpu |
insert|gpuimg --jpeg-samp|gpuimg --jpeg-sampling=|
insert|gpuimg --format=pp|gpuimg --format=ppm |
insert|gpuimg --list=comp|gpuimg --list=completion |
insert|gpuimg --dry|gpuimg --dry-run |
insert|gpuimg -o pho|gpuimg -o photo.png |
insert|gpuimg --json=pho|gpuimg --json=photo.png |
insert|gpuimg -j pho|gpuimg -j pho|
insert|gpuimg --device=pho|gpuimg --device=pho|
insert|gpuimg gr|gpuimg gray|
insert|gpuimg resize=50%,bl|gpuimg resize=50%,blur|
insert|gpuimg -v --backend=cpu gray,res|gpuimg -v --backend=cpu gray,resize|
insert|gpuimg --backend cpu gray,fli|gpuimg --backend cpu gray,flip|
insert|gpuimg gray,fla|gpuimg gray,flatten|
insert|gpuimg -o out/%s.png gray,b|gpuimg -o out/%s.png gray,blur|
insert|gpuimg -vo out/%s.png gray,b|gpuimg -vo out/%s.png gray,blur|
list|gpuimg resize=800x600:fit=|$(choices resize fit)|
insert|gpuimg resize=800x600:fit=cov|gpuimg resize=800x600:fit=cover|
list|gpuimg resize=800x600:|$(keys resize size)|
list|gpuimg gray,resize=800x600:fit=cover:|$(keys resize size fit)|
list|gpuimg resize:|$(keys resize)|
insert|gpuimg resize=800x600:fil|gpuimg resize=800x600:filter=|
insert|gpuimg resize=50%:filter=lan|gpuimg resize=50%:filter=lanczos3|
insert|gpuimg gray,blur=2:border=rep|gpuimg gray,blur=2:border=replicate|
insert|gpuimg gray,rotate=30:inter|gpuimg gray,rotate=30:interp=|
insert|gpuimg gray,rotate=30:interp=bic|gpuimg gray,rotate=30:interp=bicubic|
list|gpuimg flip=|$(choices flip axis)|
insert|gpuimg gray pho|gpuimg gray photo.png |
insert|gpuimg gray photo.png di|gpuimg gray photo.png dir/|
insert|gpuimg pho|gpuimg photo.png |
insert|gpuimg gray photo.png out.png --backend=g|gpuimg gray photo.png out.png --backend=gpu |
insert|gpuimg tune --qu|gpuimg tune --quick |
insert|gpuimg tune --si|gpuimg tune --size=|
EOF

# drive SHELL ARGS...: the cases typed into it; the line's and the list's keys set by its start-up file
drive() {
    env -i PATH="$BIN:$PATH" HOME="$T" INPUTRC=/dev/null ZDOTDIR="$T/z" BASH_COMPLETION_USER_DIR="$T/bc" \
        timeout 60 python3 "$S/tests/pty_complete.py" cases -- "$@" >"$T/out" 2>&1
}
if command -v bash >/dev/null 2>&1; then
    cat >bashrc <<EOF
PS1='pty\$ '
unset PROMPT_COMMAND HISTFILE
set -o emacs
bind 'set enable-bracketed-paste off'
bind 'set bell-style none'
bind 'set completion-query-items 0'
bind 'set page-completions off'
bind -x '"\C-x\C-p": printf "{{buf:%s:fub}}\n" "\$READLINE_LINE"'
EOF
    { cat bashrc; echo ". '$C/gpuimg'"; } >bashrc.plain
    drive bash --noprofile --rcfile bashrc.plain -i && ok || bad "bash: $(cat "$T/out")"
    # bash-completion finds the script in its user folder on the first TAB, as an installed one
    bc=/usr/share/bash-completion/bash_completion
    if [ -r "$bc" ]; then
        mkdir -p bc/completions
        cp "$C/gpuimg" bc/completions/gpuimg
        { cat bashrc; echo ". $bc"; } >bashrc.bc
        drive bash --noprofile --rcfile bashrc.bc -i && ok || bad "bash with bash-completion: $(cat "$T/out")"
    else
        echo "bash-completion not installed: bash without it only"
    fi
fi
if command -v zsh >/dev/null 2>&1; then
    mkdir z
    cat >z/.zshrc <<EOF
PS1='pty\$ '
unset HISTFILE zle_bracketed_paste
bindkey -e
setopt no_prompt_sp no_prompt_cr bash_auto_list no_auto_menu no_beep
fpath=('$C' \$fpath)
autoload -Uz compinit && compinit -u -D
showbuf() { print -r -- "{{buf:\${BUFFER}:fub}}" }
zle -N showbuf
bindkey '^X^P' showbuf
EOF
    drive zsh --no-globalrcs -i && ok || bad "zsh: $(cat "$T/out")"
else
    echo "zsh not installed: bash only"
fi
finish
