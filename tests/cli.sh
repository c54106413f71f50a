# gpuimg tests: the command line. Every pipeline form the documentation shows, stdin/stdout,
# formats, 16-bit kept, options, and usage errors (exit 2 with a usage line).
. "${TOP_SRCDIR:-.}/tests/lib.sh"

"$MKIMG" 101 61 3 8 "$T/rgb.png" 3 || exit 99
"$MKIMG" 40 30 4 16 "$T/rgba16.png" 4 || exit 99
"$MKIMG" 23 17 2 8 "$T/ga.png" 5 || exit 99

# pipeline forms: PIPELINE EXPECTED-"WxH cC dD" on rgb.png (101x61 RGB 8-bit)
while read -r pipe want; do
    if expect_ok -q --force "$pipe" "$T/rgb.png" "$T/o.png"; then
        got=$(dims "$T/o.png")
        [ "$got" = "$want" ] || bad "$pipe: got $got, want $want"
    fi
done <<'CASES'
gray 101x61 c1 d8
gray=709 101x61 c1 d8
gray=601 101x61 c1 d8
resize=50% 51x31 c3 d8
resize=1920x1080! 1920x1080 c3 d8
resize=1920x1080 1788x1080 c3 d8
resize=50x50 50x30 c3 d8
resize=50x50:fit=fill 50x50 c3 d8
resize=50x50^ 83x50 c3 d8
resize=50x50:fit=outside 83x50 c3 d8
resize=50x50:fit=cover 50x50 c3 d8
resize=50x50:fit=cover:gravity=north 50x50 c3 d8
resize=50x50:fit=contain:gravity=southwest 50x50 c3 d8
resize=200x200> 101x61 c3 d8
resize=50x50> 50x30 c3 d8
resize=200x200< 200x121 c3 d8
resize=100x100< 101x61 c3 d8
crop=50x20+10+5 50x20 c3 d8
crop=200x200 101x61 c3 d8
crop=50% 51x31 c3 d8
crop=x20:gravity=south 101x20 c3 d8
crop=90x90+20+0 81x61 c3 d8
crop=50x40:gravity=entropy 50x40 c3 d8
crop=50x40:gravity=attention 50x40 c3 d8
crop=30%:gravity=attention 30x18 c3 d8
pad=130x80:color=white,trim:background=white 101x61 c3 d8
pad=130x80:color=white,trim=5,resize=50% 51x31 c3 d8
pad=130x80:color=white,trim:background=white,crop=50% 51x31 c3 d8
pad=130x80:color=white,trim:background=white,crop=20x 20x61 c3 d8
pad=130x80:color=white,trim:background=white,pad=150% 152x92 c3 d8
pad=130x80:color=white,trim:background=white,crop=50%:gravity=entropy 51x31 c3 d8
pad=130x80:color=white,trim:background=white,resize=60x60:fit=cover 60x60 c3 d8
pad=130x80:color=white,trim:background=white,pad=110x70 110x70 c3 d8
trim=255 101x61 c3 d8
pad=200x100 200x100 c3 d8
pad=150%:color=white 152x92 c3 d8
pad=150%:color=#336699 152x92 c3 d8
pad=120x70:color=10,20,30,gray 120x70 c1 d8
resize=50x50:fit=contain:color=white 50x50 c3 d8
flatten 101x61 c3 d8
flatten=navy,gray 101x61 c1 d8
flatten=10,20,30,gray 101x61 c1 d8
pad=x70+0+9 101x70 c3 d8
gray,resize=40x40:fit=cover,pad=50x50 50x50 c1 d8
resize=800x 800x483 c3 d8
resize=x600 993x600 c3 d8
resize=50%:filter=nearest 51x31 c3 d8
resize=50%:filter=bilinear 51x31 c3 d8
resize=50%:filter=area 51x31 c3 d8
resize=50%:filter=cubic 51x31 c3 d8
resize=300%:filter=lanczos3 303x183 c3 d8
resize=10% 10x6 c3 d8
blur=2 101x61 c3 d8
blur=2:border=reflect101 101x61 c3 d8
blur=2:border=replicate 101x61 c3 d8
blur=2:border=constant 101x61 c3 d8
blur=0.5:border=constant 101x61 c3 d8
transpose 61x101 c3 d8
rotate=90 61x101 c3 d8
rotate=180 101x61 c3 d8
rotate=270 61x101 c3 d8
rotate=-90 61x101 c3 d8
rotate=450 61x101 c3 d8
rotate=30 118x103 c3 d8
rotate=720000030 118x103 c3 d8
rotate=-330:interp=bicubic 118x103 c3 d8
flip=h 101x61 c3 d8
flip=v 101x61 c3 d8
gray,resize=50%,blur=2,transpose 31x51 c1 d8
resize=200%,rotate=90,flip=v,gray=709 122x202 c1 d8
invert 101x61 c3 d8
linear=1.2,-10 101x61 c3 d8
linear=0.5:b=20 101x61 c3 d8
gamma 101x61 c3 d8
gamma=2.2,flip=h 101x61 c3 d8
levels=20,230,1.4,resize=50% 51x31 c3 d8
levels=20:white=230 101x61 c3 d8
CASES

# 16-bit RGBA stays 16-bit through every operation; gray keeps alpha
for pipe in gray resize=50% blur=1 transpose rotate=90 flip=v linear=1.1,5 gamma levels=10,240,1.2 gray,resize=50%,blur=2,transpose; do
    expect_ok -q --force "$pipe" "$T/rgba16.png" "$T/o16.png" || continue
    case "$(dims "$T/o16.png")" in
        *" d16") ok ;;
        *) bad "$pipe on 16-bit: result is $(dims "$T/o16.png")" ;;
    esac
done
[ "$(dims "$T/o16.png")" = "15x20 c2 d16" ] || bad "gray,resize=50%,blur=2,transpose on 40x30 RGBA16: $(dims "$T/o16.png")"
expect_ok -q gray "$T/ga.png" "$T/ga-gray.png" && { cmp -s "$T/ga.png" "$T/ga-gray.png" || [ "$(dims "$T/ga-gray.png")" = "23x17 c2 d8" ] || bad "gray on gray+alpha changed it"; }

# steps after a measure (trim) resolve from their parameters as given: trimming away a white pad
# then placing or resizing equals the same step on the image itself, pixels and all
for p in "resize=60x60:fit=contain:color=red" "resize=60x60:fit=cover" "crop=50%:gravity=southeast" "pad=120%"; do
    expect_ok -q -f "pad=130x80:color=white,trim:background=white,$p" "$T/rgb.png" "$T/tr1.png"
    expect_ok -q -f "$p" "$T/rgb.png" "$T/tr2.png"
    cmp -s "$T/tr1.png" "$T/tr2.png" && ok || bad "trim, then $p: not the step's result on the untrimmed image"
done

# stdin and stdout
"$GPUIMG" -q gray - - <"$T/rgb.png" >"$T/pipe.png" 2>"$T/err" && [ "$(dims "$T/pipe.png")" = "101x61 c1 d8" ] && ok || bad "gray - - failed: $(cat "$T/err")"
"$GPUIMG" -q --format=jpg flip=h "$T/rgb.png" - >"$T/pipe.jpg" 2>"$T/err" && [ "$(head -c 2 "$T/pipe.jpg" | od -An -tx1 | tr -d ' ')" = "ffd8" ] && ok || bad "--format=jpg to stdout is not a JPEG"
"$GPUIMG" -q transpose "$T/rgb.png" - >"$T/pipe2.png" 2>/dev/null && [ "$(head -c 4 "$T/pipe2.png" | tail -c 3)" = "PNG" ] && ok || bad "stdout default is not PNG"

# output formats by extension, read back
for ext in png jpg jpeg bmp tga; do
    expect_ok -q --force flip=v "$T/rgb.png" "$T/out.$ext" && { [ "$(dims "$T/out.$ext")" = "101x61 c3 d8" ] || bad ".$ext reads back as $(dims "$T/out.$ext")"; }
done
expect_ok -q --force --png-level=0 gray "$T/rgb.png" "$T/l0.png"
expect_ok -q --force --png-level=9 gray "$T/rgb.png" "$T/l9.png"
[ "$(wc -c <"$T/l0.png")" -gt "$(wc -c <"$T/l9.png")" ] && ok || bad "--png-level does not change the size"
expect_ok -q --force --jpeg-quality=10 gray "$T/rgb.png" "$T/q10.jpg"
expect_ok -q --force --jpeg-quality=100 gray "$T/rgb.png" "$T/q100.jpg"
[ "$(wc -c <"$T/q10.jpg")" -lt "$(wc -c <"$T/q100.jpg")" ] && ok || bad "--jpeg-quality does not change the size"

# timings: one line by default, nothing with -q, per-step with -v, JSON
run --backend=cpu gray "$T/rgb.png" "$T/t1.png"
[ "$RC" -eq 0 ] && [ "$(wc -l <"$ERR")" -eq 1 ] && grep -Eq '^gpuimg: decode [0-9.]+ ms, process [0-9.]+ ms, encode [0-9.]+ ms, total [0-9.]+ ms \[cpu, [0-9]+ threads?(, no usable GPU)?\]$' "$ERR" && ok || bad "timing line: $(cat "$ERR")"
run -q gray "$T/rgb.png" "$T/t2.png"
[ "$RC" -eq 0 ] && [ ! -s "$ERR" ] && [ ! -s "$OUT" ] && ok || bad "-q printed something"
run -v --backend=cpu gray,blur=1 "$T/rgb.png" "$T/t3.png"
grep -q 'process [0-9.]* ms (gray [0-9.]*, blur=1 [0-9.]*)' "$ERR" && grep -q '101x61 RGB 8-bit' "$ERR" && ok || bad "-v: $(cat "$ERR")"
run -q --backend=cpu --json="$T/r.json" resize=50% "$T/rgb.png" "$T/t4.png"
[ "$(json_field "$T/r.json" width)" = 101 ] && grep -q '"backend": "cpu"' "$T/r.json" && grep -q '"step": "resize=50%"' "$T/r.json" && ok || bad "--json content: $(cat "$T/r.json")"
# the codecs that ran, named in --json and -v (PNG in: libdeflate where built, else libpng)
grep -Eq '"decoder": "(libdeflate|libpng [0-9.]+)"' "$T/r.json" && grep -Eq '"encoder": "(libdeflate|zlib)' "$T/r.json" \
    && grep -q '"shrink_on_load": 1' "$T/r.json" && ok || bad "--json names no codecs: $(cat "$T/r.json")"
run -v --backend=cpu --png-decoder=libpng resize=50% "$T/rgb.png" "$T/t4v.png"
grep -Eq "rgb.png \(.*, libpng [0-9.]+\) -> .*t4v.png \(.*, (libdeflate|zlib)" "$ERR" && ok || bad "-v names no codecs: $(cat "$ERR")"
run -q --json=- gray "$T/rgb.png" "$T/t5.png"
grep -q '"decode":' "$OUT" && ok || bad "--json=- wrote nothing to stdout"
run -q --threads=1 --json=- gray "$T/rgb.png" "$T/t6.png"
grep -q '"threads": 1,' "$OUT" && ok || bad "--threads=1 not reported"
# -j: a batch's files in flight (as make -j); on a single file its threads, as before, with a note
run -j 1 --json="$T/j1.json" gray "$T/rgb.png" "$T/t7.png"
[ "$RC" -eq 0 ] && grep -q '^gpuimg: note: -j 1 sets this file.s threads, as it did; in a batch -j is files in flight (as make -j): say --threads=1$' "$ERR" \
    && grep -q '"threads": 1,' "$T/j1.json" && ok || bad "-j on a single file: $(cat "$ERR")"
cp "$T/rgb.png" "$T/rgb2.png"
run -j 2 -o "$T/jb/%s.png" gray "$T/rgb.png" "$T/rgb2.png"
[ "$RC" -eq 0 ] && grep -q '^gpuimg: batch: 2 done, .*\[cpu, 2 jobs x [0-9]* threads\?[],]' "$ERR" && ok || bad "-j in a batch: $(cat "$ERR")"
run --threads=1 -o "$T/jt/%s.png" gray "$T/rgb.png" "$T/rgb2.png"
[ "$RC" -eq 0 ] && grep -q '^gpuimg: batch: 2 done, .* x 1 thread[],]' "$ERR" && ok || bad "--threads in a batch: $(cat "$ERR")"
expect_fail 2 "-j 2 and --jobs=3 contradict each other" -j 2 --jobs=3 -o "$T/jc/%s.png" gray "$T/rgb.png"

# --force, existing outputs, output equal to input
cp "$T/rgb.png" "$T/keep.png"
expect_fail 1 "keep.png: output exists \(use --force" gray "$T/rgb.png" "$T/keep.png"
cmp -s "$T/rgb.png" "$T/keep.png" && ok || bad "existing output was changed without --force"
expect_ok -q --force gray "$T/rgb.png" "$T/keep.png" && [ "$(dims "$T/keep.png")" = "101x61 c1 d8" ] && ok || bad "--force did not replace"

# INPUT OUTPUT alone (the first word no pipeline): a conversion, the pixels unchanged (copy)
expect_ok -q "$T/rgb.png" "$T/conv.ppm"
expect_ok -q "$T/conv.ppm" "$T/conv.png"
"$(dirname "$GPUIMG")/tests/golden_test" --diff "$T/conv.png" "$T/rgb.png" 0 >"$T/log" && ok || bad "INPUT OUTPUT: $(cat "$T/log")"
expect_ok -v copy "$T/rgb.png" "$T/conv.jpg"
grep -q "conv.jpg (.*RGB 8-bit, libjpeg-turbo" "$ERR" || grep -q "conv.jpg (.*, stb_image_write)" "$ERR" && ok || bad "copy to JPEG: $(cat "$ERR")"
expect_fail 2 "missing OUTPUT" gray "$T/rgb.png"
# help, version, list
run --help; [ "$RC" -eq 0 ] && grep -q '^Usage: gpuimg' "$OUT" && [ ! -s "$ERR" ] && ok || bad "--help"
run -h; [ "$RC" -eq 0 ] && grep -q 'Operations:' "$OUT" && ok || bad "-h"
run --version; [ "$RC" -eq 0 ] && grep -q '^gpuimg [0-9]' "$OUT" && ok || bad "--version"
# a CUDA build on a machine with no NVIDIA driver says so in plain words, not as the runtime's
# "driver version is insufficient"
if grep -q '^CUDA: yes' "$OUT" && [ ! -e /proc/driver/nvidia/version ]; then
    grep -q '^GPU: none usable (no NVIDIA driver (none is loaded on this machine); ' "$OUT" && ok || bad "--version, no driver: $(grep '^GPU' "$OUT")"
fi
run --list; [ "$RC" -eq 0 ] && for op in gray resize blur transpose rotate flip; do grep -q "^$op" "$OUT" || bad "--list lacks $op"; done && ok

# usage errors: exit 2, one message line and the usage
expect_fail 2 "missing PIPELINE, INPUT and OUTPUT"
expect_fail 2 "missing OUTPUT" gray "$T/rgb.png"
expect_fail 2 "too many arguments" gray "$T/rgb.png" a.png b.png
expect_fail 2 "unknown operation 'emboss'" emboss "$T/rgb.png" "$T/x.png"
expect_fail 2 "blur: sigma must be a number in \(0, 100\], not '0'" blur=0 "$T/rgb.png" "$T/x.png"
expect_fail 2 "blur: sigma must be a number in \(0, 100\], not 'abc'" blur=abc "$T/rgb.png" "$T/x.png"
expect_fail 2 "blur needs its sigma" blur "$T/rgb.png" "$T/x.png"
expect_fail 2 "sharpen: amount must be a number in \[0, 20\], not '-1'" sharpen=1:amount=-1 "$T/rgb.png" "$T/x.png"
# white space on either side of a number is refused alike; a tiny sigma is a number like any other
expect_fail 2 "blur: sigma must be a number in \(0, 100\], not ' 2'" "blur= 2" "$T/rgb.png" "$T/x.png"
expect_fail 2 "blur: sigma must be a number in \(0, 100\], not '2 '" "blur=2 " "$T/rgb.png" "$T/x.png"
expect_ok -q --force blur=1e-308 "$T/rgb.png" "$T/tiny.png" && expect_ok -q --force flip=h,flip=h "$T/rgb.png" "$T/same.png" \
    && cmp -s "$T/tiny.png" "$T/same.png" && ok || bad "blur=1e-308 (one tap) does not give its input back"
expect_fail 2 "blur: border must be one of reflect101\|replicate\|constant, not 'wrap'" blur=2:border=wrap "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: size must be" resize=50 "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: size must be" resize=0x0 "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: size must be" resize=5x5!! "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: size must be" resize=5x! "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: WxH> goes with fit=inside only" "resize=50x50>:fit=cover" "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: the size takes no \+X\+Y" resize=5x5+1+1 "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize has no parameter 'gravit'" resize=5x5:gravit=north "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop needs its size" crop "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop: size must be" crop=5x5+1 "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop: size must be" crop=5x5+-1+1 "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop: the size takes no \^" "crop=5x5^" "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop: gravity=entropy places the rectangle itself" crop=5x5+1+1:gravity=entropy "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop: gravity=attention places the rectangle itself" crop=5x5+1+1:gravity=attention "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop: gravity must be one of .*entropy.attention, not 'attentionx'" crop=5x5:gravity=attentionx "$T/rgb.png" "$T/x.png"
expect_fail 2 "crop: gravity must be one of .*entropy.attention, not 'attn'" crop=5x5:gravity=attn "$T/rgb.png" "$T/x.png"
expect_fail 2 "trim: threshold must be a number in \[0, 255\], not '300'" trim=300 "$T/rgb.png" "$T/x.png"
# a step that cannot take the trimmed image fails after the measure, naming the file, no output
expect_fail 1 "rgb.png: pad: the 101x61 image does not fit a 50x50 canvas" \
    pad=130x80:color=white,trim:background=white,pad=50x50 "$T/rgb.png" "$T/x-trim.png"
[ ! -e "$T/x-trim.png" ] && ok || bad "a failed trim pipeline left its output"
expect_fail 2 "trim: threshold must be a number in \[0, 255\], not 'abc'" trim=abc "$T/rgb.png" "$T/x.png"
expect_fail 2 "trim: background must be a colour" trim:background=nocolour "$T/rgb.png" "$T/x.png"
expect_fail 2 "trim has no parameter 'fuzz'" trim:fuzz=3 "$T/rgb.png" "$T/x.png"
# colours: one parser for every colour parameter (and --background, tests/formats.sh)
expect_fail 2 "pad: color must be a colour: .*, not 'rouge'" pad=200x200:color=rouge "$T/rgb.png" "$T/x.png"
expect_fail 2 "pad: color must be a colour: .*, not '1,2,300'" pad=200x200:color=1,2,300 "$T/rgb.png" "$T/x.png"
expect_fail 2 "pad: color must be a colour: .*, not '1,2'" pad=200x200:color=1,2 "$T/rgb.png" "$T/x.png"
expect_fail 2 "pad: color must be a colour: .*, not '#12'" pad=200x200:color=#12 "$T/rgb.png" "$T/x.png"
expect_fail 2 "pad: color must be a colour: .*, not '#12345g'" pad=200x200:color=#12345g "$T/rgb.png" "$T/x.png"
expect_fail 2 "flatten: color must be a colour: .*, not '#12'" flatten=#12 "$T/rgb.png" "$T/x.png"
expect_fail 2 "flatten: color must be opaque \(the result has no alpha\), not #01020304" flatten=1,2,3,4 "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: color #ff0000 is the margin of fit=contain \(this is fit=cover\)" resize=50x50:fit=cover:color=red \
    "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: color #ff0000 is the margin of fit=contain into a WxH box \\(this size has none\\)" \
    resize=50%:fit=contain:color=red "$T/rgb.png" "$T/x.png"
expect_fail 2 "pad: 50% would be smaller than the image" pad=50% "$T/rgb.png" "$T/x.png"
# a step that cannot take this image: exit 1, the file named, no output
expect_fail 1 "rgb\.png: crop: the corner \+200\+0 lies outside the 101x61 image" crop=5x5+200+0 "$T/rgb.png" "$T/x.png"
expect_fail 1 "rgb\.png: pad: the 101x61 image does not fit a 50x50 canvas" pad=50x50 "$T/rgb.png" "$T/x.png"
expect_fail 1 "rgb\.png: pad: the 101x61 image does not fit a 200x100 canvas at \+100\+0" pad=200x100+100+0 "$T/rgb.png" "$T/x.png"
[ ! -e "$T/x.png" ] && ok || bad "a failed crop or pad left an output"
expect_fail 2 "resize: size must be a percentage" resize=-5% "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize: filter must be one of" resize=50%:filter=mitchell "$T/rgb.png" "$T/x.png"
expect_fail 2 "resize has no parameter 'sigma'" resize=50%:sigma=2 "$T/rgb.png" "$T/x.png"
expect_fail 2 "rotate: angle must be a number in \[-1e\+15, 1e\+15\], not 'abc'" rotate=abc "$T/rgb.png" "$T/x.png"
expect_fail 2 "rotate: angle must be a number .*, not 'nan'" rotate=nan "$T/rgb.png" "$T/x.png"
expect_fail 2 "rotate: angle must be a number .*, not 'inf'" rotate=inf "$T/rgb.png" "$T/x.png"
expect_fail 2 "rotate: interp must be one of bilinear\|bicubic\|nearest" rotate=30:interp=lanczos3 "$T/rgb.png" "$T/x.png"
expect_fail 2 "rotate: color must be a colour" rotate=30:color=nocolour "$T/rgb.png" "$T/x.png"
expect_fail 2 "rotate needs its angle" rotate "$T/rgb.png" "$T/x.png"
expect_fail 2 "flip: axis must be one of h\|v" flip=x "$T/rgb.png" "$T/x.png"
expect_fail 2 "transpose takes no value" transpose=1 "$T/rgb.png" "$T/x.png"
expect_fail 2 "linear needs its a" linear "$T/rgb.png" "$T/x.png"
expect_fail 2 "linear takes at most 2 values \(linear=a,b\), not '1,2,3'" linear=1,2,3 "$T/rgb.png" "$T/x.png"
expect_fail 2 "linear: b must be a number in \[-1000, 1000\], not '2000'" linear=1,2000 "$T/rgb.png" "$T/x.png"
expect_fail 2 "gamma: exponent must be a number in \(0, 1000\], not '0'" gamma=0 "$T/rgb.png" "$T/x.png"
expect_fail 2 "gamma: exponent must be a number in \(0, 1000\], not '-2'" gamma=-2 "$T/rgb.png" "$T/x.png"
expect_fail 2 "levels: black \(200\) must be below white \(100\)" levels=200,100 "$T/rgb.png" "$T/x.png"
expect_fail 2 "levels: black \(255\) must be below white \(255\)" levels=255 "$T/rgb.png" "$T/x.png"
expect_fail 2 "levels: white must be a number in \[0, 255\], not '300'" levels=0,300 "$T/rgb.png" "$T/x.png"
expect_fail 2 "levels: gamma must be a number in \(0, 1000\], not '0'" levels=0,255,0 "$T/rgb.png" "$T/x.png"
expect_fail 2 "levels: black is empty" levels=,255 "$T/rgb.png" "$T/x.png"
expect_fail 2 "levels: gamma is given twice" levels=0,255,2:gamma=3 "$T/rgb.png" "$T/x.png"
expect_fail 2 "empty operation" levels=20,230, "$T/rgb.png" "$T/x.png"
# a comma before a number joins the step's values (blur's second is border), not steps
expect_fail 2 "blur: border must be one of reflect101\|replicate\|constant, not '5'" blur=2,5 "$T/rgb.png" "$T/x.png"
expect_fail 2 "rotate: interp must be one of bilinear\|bicubic\|nearest, not '90'" rotate=90,90 "$T/rgb.png" "$T/x.png"
expect_fail 2 "empty operation" gray,,blur=1 "$T/rgb.png" "$T/x.png"
expect_fail 2 "empty operation" gray, "$T/rgb.png" "$T/x.png"
expect_fail 2 "x.xyz: unknown output format" gray "$T/rgb.png" "$T/x.xyz"
expect_fail 2 "unknown option '--nope'" --nope gray "$T/rgb.png" "$T/x.png"
expect_fail 2 "option '--force' takes no value" --force=1 gray "$T/rgb.png" "$T/x.png"
# the environment: a bad value is a usage error naming it for a command that does work; help,
# version and lists still answer
GPUIMG_PIN=2 "$GPUIMG" --help >/dev/null 2>&1 && GPUIMG_PIN=2 "$GPUIMG" --list=completion >/dev/null 2>&1 && ok \
    || bad "a bad GPUIMG_PIN stops --help or --list"
GPUIMG_PIN=2 run gray "$T/rgb.png" "$T/pin.png"
[ "$RC" -eq 2 ] && grep -q "^gpuimg: GPUIMG_PIN: expected a whole number from 0 to 1, not '2'" "$ERR" && [ ! -e "$T/pin.png" ] && ok \
    || bad "GPUIMG_PIN=2: exit $RC, $(cat "$ERR")"
GPUIMG_NO_SIMD=yes run gray "$T/rgb.png" "$T/pin.png"
[ "$RC" -eq 2 ] && grep -q "^gpuimg: GPUIMG_NO_SIMD: expected 0 or 1, not 'yes'" "$ERR" && ok || bad "GPUIMG_NO_SIMD=yes: $(cat "$ERR")"
GPUIMG_STREAM= run -q gray "$T/rgb.png" "$T/empty-env.png"
[ "$RC" -eq 0 ] && ok || bad "an empty GPUIMG_STREAM is not unset: $(cat "$ERR")"
expect_fail 2 "--png-level: expected a whole number from 0 to 9, not '10'" --png-level=10 gray "$T/rgb.png" "$T/x.png"
expect_fail 2 "--jpeg-quality: expected a whole number from 1 to 100" --jpeg-quality=0 gray "$T/rgb.png" "$T/x.jpg"
expect_fail 2 "--backend must be auto, cpu or gpu" --backend=tpu gray "$T/rgb.png" "$T/x.png"
expect_fail 2 "--format must be png, jpg, webp, tiff, heic, avif, jxl, bmp, tga or ppm" --format=gif gray "$T/rgb.png" -
expect_fail 2 "--threads: expected a whole number" --threads=0 gray "$T/rgb.png" "$T/x.png"
expect_fail 2 "--json=- and output '-' would both write to stdout" --json=- gray "$T/rgb.png" -
expect_fail 2 "option '--json' needs a value" gray "$T/rgb.png" "$T/x.png" --json
[ ! -e "$T/x.png" ] && ok || bad "a usage error left an output file"

# limits on results: a resize over --max-pixels is refused before any work
expect_fail 1 "resize=100x100!: the result would be 100x100 \(10000 pixels\), over the limit of 9999" --max-pixels=9999 resize=100x100! "$T/ga.png" "$T/x.png"
# gpuimg tune: its options are checked before any GPU work (usage errors, exit 2)
expect_fail 2 "tune: unknown option '--bogus'" tune --bogus
expect_fail 2 "tune: --size must be WxH \(1 to 32768\), not '0x5'" tune --size=0x5
expect_fail 2 "tune: --repeat: expected a whole number from 1 to 1000, not '0'" tune --repeat=0
expect_fail 2 "tune: unknown option '--json=x.json'" tune --json=x.json
expect_fail 2 "tune: unexpected argument 'gray'" tune gray
# gpuimg info: headers and metadata, nothing decoded; a bad file said, the others described
"$GPUIMG" -q --jpeg-quality=80 copy "$T/rgb.png" "$T/i.jpg" || exit 99
printf 'not an image' >"$T/junk.png"
run info "$T/ga.png" "$T/i.jpg" "$T/junk.png" "$TOP_SRCDIR/tests/formats/progressive.jpg"
[ "$RC" -eq 1 ] && [ "$(wc -l <"$OUT")" -eq 3 ] && [ "$(wc -l <"$ERR")" -eq 1 ] \
    && grep -q "^$T/ga.png: PNG [0-9]*x[0-9]* gray+alpha 8-bit" "$OUT" && grep -q "^$T/i.jpg: JPEG [0-9]*x[0-9]* RGB 8-bit" "$OUT" \
    && grep -q "progressive.jpg: JPEG 13x9 RGB 8-bit, progressive (752 bytes)$" "$OUT" \
    && grep -q "^gpuimg: $T/junk.png: not an image" "$ERR" && ok || bad "info: exit $RC: $(cat "$OUT" "$ERR")"
run info --json "$T/i.jpg"
[ "$RC" -eq 0 ] && grep -q '^{"file": ".*i.jpg", "format": "JPEG", "width": [0-9]*, "height": [0-9]*, "channels": 3, "depth": 8, "orientation": 1, "progressive": false, "cmyk": false, "frames": 1, "icc": null, .*"bytes": [0-9]*}$' "$OUT" \
    && ok || bad "info --json: $(cat "$OUT" "$ERR")"
# a CMYK JPEG is said to be one, from its head and read whole alike (gpuimg reads it as RGB)
run info "$TOP_SRCDIR/tests/jpeg/cmyk.jpg"
grep -q "cmyk.jpg: JPEG [0-9]*x[0-9]* CMYK (read as RGB) 8-bit" "$OUT" && ok || bad "info of a CMYK JPEG: $(cat "$OUT" "$ERR")"
run info --json "$TOP_SRCDIR/tests/jpeg/cmyk.jpg"
grep -q '"channels": 3, .*"cmyk": true' "$OUT" && ok || bad "info --json of a CMYK JPEG: $(cat "$OUT" "$ERR")"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; json.loads(open(sys.argv[1]).read())' "$OUT" && ok || bad "info --json is not JSON"
fi
# a JPEG whose markers run past the 128 KiB head (three full comments): read whole, the same facts
command -v python3 >/dev/null 2>&1 && python3 - "$T/i.jpg" "$T/bigcom.jpg" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
com = b"".join(b"\xff\xfe" + struct.pack(">H", 65535) + bytes([65 + k]) * 65533 for k in range(3))
open(sys.argv[2], "wb").write(d[:2] + com + d[2:])
PY
[ -s "$T/bigcom.jpg" ] && run info "$T/i.jpg" "$T/bigcom.jpg" && [ "$RC" -eq 0 ] && [ "$(sed -n 's/^[^:]*: \(JPEG [0-9x]* RGB 8-bit\).*/\1/p' "$OUT" | sort -u | wc -l)" -eq 1 ] \
    && grep -q "bigcom.jpg: JPEG .*comment 65533 bytes" "$OUT" && ok || bad "info past the head: $(cat "$OUT" "$ERR")"
expect_fail 2 "info: no FILE" info --json
expect_fail 2 "info: unknown option '--pretty'" info --pretty "$T/i.jpg"
# a first word that is an operation and a file: which is meant is asked; one file alone: a hint
here=$(pwd)
cd "$T" && cp rgb.png gray && {
    expect_fail 2 "'gray' is both an operation and a file here: write ./gray x.png to convert the file, or gray INPUT OUTPUT" \
        gray x.png
    [ ! -e x.png ] && ok || bad "the refused two-word command wrote x.png"
    rm -f gray
}
cd "$here" || exit 99
expect_fail 2 "missing OUTPUT: gpuimg .*i.jpg OUTPUT converts .*i.jpg, gpuimg info .*i.jpg describes it" "$T/i.jpg"
finish
