/* Shrimp's stand-in for miniaudio.h, used only to build the ollama v0.24.0
 * test server from the Go module proxy. The module zip drops vendor/
 * directories, and llama.cpp's multimodal audio helper (tools/mtmd) includes
 * this header. Every decoder call fails, so audio input is unsupported in
 * that test binary; chat, tools and embeddings are unaffected. */
#ifndef SHRIMP_MINIAUDIO_STUB_H
#define SHRIMP_MINIAUDIO_STUB_H
#include <stddef.h>
#ifndef MA_API
#define MA_API
#endif
typedef unsigned long long ma_uint64;
typedef unsigned int ma_uint32;
typedef int ma_result;
#define MA_SUCCESS 0
#define MA_ERROR (-1)
typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;
typedef struct { ma_format format; ma_uint32 channels; ma_uint32 sampleRate; } ma_decoder_config;
typedef struct { int unused; } ma_decoder;
MA_API ma_decoder_config ma_decoder_config_init(ma_format format, ma_uint32 channels, ma_uint32 rate) {
    ma_decoder_config c;
    c.format = format;
    c.channels = channels;
    c.sampleRate = rate;
    return c;
}
MA_API ma_result ma_decoder_init_memory(const void *data, size_t size, const ma_decoder_config *config, ma_decoder *decoder) {
    (void)data; (void)size; (void)config; (void)decoder;
    return MA_ERROR;
}
MA_API ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *decoder, ma_uint64 *frames) {
    (void)decoder;
    *frames = 0;
    return MA_ERROR;
}
MA_API ma_result ma_decoder_read_pcm_frames(ma_decoder *decoder, void *out, ma_uint64 frames, ma_uint64 *read) {
    (void)decoder; (void)out; (void)frames;
    if (read) *read = 0;
    return MA_ERROR;
}
MA_API ma_result ma_decoder_uninit(ma_decoder *decoder) {
    (void)decoder;
    return MA_SUCCESS;
}
#endif
