/* Embree 3's ray rate on the rays srcmap's bench_rays example wrote (issue 38, item 2).
 *
 *   embree_rays RAYS_FILE [OURS_FILE]
 *
 * Loads the triangles into one Embree scene (RTC_BUILD_QUALITY_HIGH, one thread; see
 * build_scene), then per
 * ray set times, on this thread, single rays (rtcOccluded1 / rtcIntersect1) and packets of
 * 4, 8 and 16 (rtcOccluded4/8/16, rtcIntersect4/8/16) over the rays in file order, each the
 * least CPU time (CLOCK_THREAD_CPUTIME_ID) of three runs. With OURS_FILE (srcmap's answers)
 * it counts the rays on which both agree: occluded or not; for closest hits, hit or miss
 * (agree) and, in t_agree, both missing or both hitting at distances within 1e-3 relative.
 *
 * Prints one line per set and mode:
 *   embree set=NAME mode=single|packet4|packet8|packet16 rays=N cpu_s=S rays_per_s=R hits=H
 *   [agree=A t_agree=B]
 * The file layout is documented in crates/vrad/examples/bench_rays.rs. */
#define _POSIX_C_SOURCE 199309L
#include <embree3/rtcore.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const SET_NAMES[] = {"sun", "sun-closest", "hemi-occl", "closest"};

struct ray { float org[3], dir[3], tnear, tfar; };

struct set {
    uint32_t closest, count;
    const struct ray *rays;
    /* Embree's answers: occluded (0/1), or the closest hit's distance and triangle. */
    unsigned char *occluded;
    float *t;
    uint32_t *prim;
};

static void die(const char *what, const char *path) {
    fprintf(stderr, "embree_rays: %s: %s\n", path, what);
    exit(1);
}

static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open", path);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(*len ? *len : 1);
    if (!buf || fread(buf, 1, *len, f) != *len) die("cannot read", path);
    fclose(f);
    return buf;
}

static uint32_t u32_at(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* RTC_BUILD_QUALITY_HIGH (spatial splits), or MEDIUM with EMBREE_QUALITY=medium: to see what
 * the splits buy on map geometry's long triangles. */
static RTCScene build_scene(RTCDevice dev, const float *tris, uint32_t ntri) {
    const char *want = getenv("EMBREE_QUALITY");
    enum RTCBuildQuality quality = want && !strcmp(want, "medium") ? RTC_BUILD_QUALITY_MEDIUM
                                                                   : RTC_BUILD_QUALITY_HIGH;
    RTCScene scene = rtcNewScene(dev);
    rtcSetSceneBuildQuality(scene, quality);
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetGeometryBuildQuality(g, quality);
    float *v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                       3 * sizeof(float), 3 * (size_t)ntri);
    uint32_t *idx = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                            3 * sizeof(uint32_t), ntri);
    memcpy(v, tris, 9 * sizeof(float) * (size_t)ntri);
    for (uint32_t i = 0; i < 3 * ntri; i++) idx[i] = i;
    rtcCommitGeometry(g);
    rtcAttachGeometry(scene, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(scene);
    return scene;
}

static void one_ray(const struct ray *r, struct RTCRay *out) {
    out->org_x = r->org[0]; out->org_y = r->org[1]; out->org_z = r->org[2];
    out->dir_x = r->dir[0]; out->dir_y = r->dir[1]; out->dir_z = r->dir[2];
    out->tnear = r->tnear; out->tfar = r->tfar;
    out->time = 0; out->mask = ~0u; out->id = 0; out->flags = 0;
}

static void trace_single(RTCScene scene, struct set *s) {
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (uint32_t i = 0; i < s->count; i++) {
        if (s->closest) {
            struct RTCRayHit rh;
            one_ray(&s->rays[i], &rh.ray);
            rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
            rtcIntersect1(scene, &ctx, &rh);
            int hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
            s->t[i] = hit ? rh.ray.tfar : INFINITY;
            s->prim[i] = hit ? rh.hit.primID : UINT32_MAX;
        } else {
            struct RTCRay r;
            one_ray(&s->rays[i], &r);
            rtcOccluded1(scene, &ctx, &r);
            s->occluded[i] = r.tfar < 0;
        }
    }
}

/* One packet width: the SoA structs differ only in their lane count, so a macro writes the
 * fill, trace and read-back for each. */
#define PACKET_FILL(R, lane, src)                                                            \
    do {                                                                                     \
        (R).org_x[lane] = (src)->org[0]; (R).org_y[lane] = (src)->org[1];                    \
        (R).org_z[lane] = (src)->org[2]; (R).dir_x[lane] = (src)->dir[0];                    \
        (R).dir_y[lane] = (src)->dir[1]; (R).dir_z[lane] = (src)->dir[2];                    \
        (R).tnear[lane] = (src)->tnear; (R).tfar[lane] = (src)->tfar;                         \
        (R).time[lane] = 0; (R).mask[lane] = ~0u; (R).id[lane] = lane; (R).flags[lane] = 0;  \
    } while (0)

#define DEFINE_PACKET(N)                                                                     \
    static void trace_packet##N(RTCScene scene, struct set *s) {                             \
        struct RTCIntersectContext ctx;                                                      \
        rtcInitIntersectContext(&ctx);                                                       \
        for (uint32_t base = 0; base < s->count; base += N) {                                \
            _Alignas(64) int valid[N];                                                       \
            uint32_t n = s->count - base < N ? s->count - base : N;                          \
            if (s->closest) {                                                                \
                _Alignas(64) struct RTCRayHit##N rh;                                         \
                for (uint32_t k = 0; k < N; k++) {                                           \
                    valid[k] = k < n ? -1 : 0;                                               \
                    PACKET_FILL(rh.ray, k, &s->rays[base + (k < n ? k : 0)]);                \
                    rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;                              \
                }                                                                            \
                rtcIntersect##N(valid, scene, &ctx, &rh);                                    \
                for (uint32_t k = 0; k < n; k++) {                                           \
                    int hit = rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;                   \
                    s->t[base + k] = hit ? rh.ray.tfar[k] : INFINITY;                        \
                    s->prim[base + k] = hit ? rh.hit.primID[k] : UINT32_MAX;                 \
                }                                                                            \
            } else {                                                                         \
                _Alignas(64) struct RTCRay##N r;                                             \
                for (uint32_t k = 0; k < N; k++) {                                           \
                    valid[k] = k < n ? -1 : 0;                                               \
                    PACKET_FILL(r, k, &s->rays[base + (k < n ? k : 0)]);                     \
                }                                                                            \
                rtcOccluded##N(valid, scene, &ctx, &r);                                      \
                for (uint32_t k = 0; k < n; k++) s->occluded[base + k] = r.tfar[k] < 0;      \
            }                                                                                \
        }                                                                                    \
    }

DEFINE_PACKET(4)
DEFINE_PACKET(8)
DEFINE_PACKET(16)

static uint32_t count_hits(const struct set *s) {
    uint32_t hits = 0;
    for (uint32_t i = 0; i < s->count; i++)
        hits += s->closest ? s->prim[i] != UINT32_MAX : s->occluded[i];
    return hits;
}

/* Compares with srcmap's answers at *ours (advanced past this set). */
static void agreement(const struct set *s, const unsigned char **ours, const unsigned char *end) {
    uint32_t agree = 0, t_agree = 0;
    size_t need = (size_t)s->count * (s->closest ? 8 : 1);
    if ((size_t)(end - *ours) < need) {
        printf(" agree=unknown");
        return;
    }
    for (uint32_t i = 0; i < s->count; i++) {
        if (!s->closest) {
            agree += (*ours)[i] == s->occluded[i];
            continue;
        }
        float t;
        memcpy(&t, *ours + 8 * (size_t)i, 4);
        int ours_hit = u32_at(*ours + 8 * (size_t)i + 4) != UINT32_MAX;
        int theirs_hit = s->prim[i] != UINT32_MAX;
        agree += ours_hit == theirs_hit;
        t_agree += ours_hit == theirs_hit &&
                   (!ours_hit || fabsf(t - s->t[i]) <= 1e-3f * fmaxf(1.0f, t));
    }
    *ours += need;
    printf(" agree=%u", agree);
    if (s->closest) printf(" t_agree=%u", t_agree);
}

/* Appends a set's single-ray answers to `out` in OURS_FILE's layout (EMBREE_ANSWERS=FILE):
 * to look at the rays on which the two tracers differ. */
static void write_answers(FILE *out, const struct set *s) {
    for (uint32_t i = 0; i < s->count; i++) {
        if (!s->closest) {
            fputc(s->occluded[i], out);
            continue;
        }
        fwrite(&s->t[i], 4, 1, out);
        fwrite(&s->prim[i], 4, 1, out);
    }
}

typedef void (*tracer)(RTCScene, struct set *);

static void time_mode(RTCScene scene, struct set *s, const char *name, const char *mode,
                      tracer trace) {
    double best = INFINITY;
    for (int run = 0; run < 3; run++) {
        double start = thread_cpu();
        trace(scene, s);
        double cpu = thread_cpu() - start;
        if (cpu < best) best = cpu;
    }
    printf("embree set=%s mode=%s rays=%u cpu_s=%.4f rays_per_s=%.0f hits=%u", name, mode,
           s->count, best, s->count / best, count_hits(s));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: embree_rays RAYS_FILE [OURS_FILE]\n");
        return 2;
    }
    size_t len, ours_len = 0;
    unsigned char *buf = read_all(argv[1], &len);
    if (len < 16 || memcmp(buf, "SRCMRAY1", 8)) die("not a bench_rays file", argv[1]);
    uint32_t ntri = u32_at(buf + 8), nsets = u32_at(buf + 12);
    if (nsets > 4 || len < 16 + 8 * (size_t)nsets) die("bad header", argv[1]);
    size_t at = 16 + 8 * (size_t)nsets;
    const float *tris = (const float *)(buf + at);
    at += 36 * (size_t)ntri;
    struct set sets[4];
    for (uint32_t i = 0; i < nsets; i++) {
        struct set *s = &sets[i];
        s->closest = u32_at(buf + 16 + 8 * i);
        s->count = u32_at(buf + 20 + 8 * i);
        s->rays = (const struct ray *)(buf + at);
        at += sizeof(struct ray) * (size_t)s->count;
        s->occluded = malloc(s->count + 1);
        s->t = malloc(4 * (size_t)s->count + 4);
        s->prim = malloc(4 * (size_t)s->count + 4);
    }
    if (at != len) die("size does not match its header", argv[1]);
    const unsigned char *ours = argc > 2 ? read_all(argv[2], &ours_len) : NULL;
    const unsigned char *ours_end = ours ? ours + ours_len : NULL;

    const char *answers_path = getenv("EMBREE_ANSWERS");
    FILE *answers = answers_path ? fopen(answers_path, "wb") : NULL;
    if (answers_path && !answers) die("cannot create", answers_path);
    RTCDevice dev = rtcNewDevice("threads=1");
    if (!dev) die("rtcNewDevice failed", argv[1]);
    double start = thread_cpu();
    RTCScene scene = build_scene(dev, tris, ntri);
    printf("embree triangles=%u build_cpu_s=%.4f\n", ntri, thread_cpu() - start);
    static const char *const modes[] = {"packet4", "packet8", "packet16"};
    static const tracer packets[] = {trace_packet4, trace_packet8, trace_packet16};
    for (uint32_t i = 0; i < nsets; i++) {
        const char *name = SET_NAMES[i];
        for (int m = 0; m < 3; m++) {
            time_mode(scene, &sets[i], name, modes[m], packets[m]);
            printf("\n");
        }
        /* Single rays last: their answers are the ones compared. */
        time_mode(scene, &sets[i], name, "single", trace_single);
        if (ours) agreement(&sets[i], &ours, ours_end);
        printf("\n");
        if (answers) write_answers(answers, &sets[i]);
    }
    if (answers) fclose(answers);
    rtcReleaseScene(scene);
    rtcReleaseDevice(dev);
    return 0;
}
