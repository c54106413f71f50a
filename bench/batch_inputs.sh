# gpuimg bench: what the batch scripts share, sourced by them. batch_inputs DIR N: DIR emptied
# ($BATCH_DIR instead when set; d is set to it), then N JPEGs of 2560x1600 made from the images
# in .bench/ into $d/in (bench/make_batch_inputs.py, which also writes $d/in/list.txt).
batch_inputs() {
    d=${BATCH_DIR:-$1}
    rm -rf "$d"
    mkdir -p "$d"
    python3 bench/make_batch_inputs.py "$d/in" "$2" 2560 1600 .bench/*.jpg .bench/*.png
}
