import { VideoOffIcon } from 'lucide-react'
import { useState } from 'react'
import { playableVideoUrl, youtubeEmbedUrl, type Lesson } from '#common/courses'

/**
 * The lesson's video: YouTube through the privacy-enhanced player (youtube-nocookie.com,
 * the only video host the Content-Security-Policy lets the page frame), otherwise a plain player
 * for an https (or same-site) file. Anything else is not embedded.
 */
export function LessonVideo({ lesson }: { lesson: Pick<Lesson, 'title' | 'videoUrl' | 'videoType'> }) {
  const [failed, setFailed] = useState(false)
  if (!lesson.videoUrl) return null
  const embed = lesson.videoType === 'youtube' ? youtubeEmbedUrl(lesson.videoUrl) : null
  const file = lesson.videoType === 'youtube' ? null : playableVideoUrl(lesson.videoUrl)

  if (embed) {
    return (
      <div className="aspect-video w-full overflow-hidden rounded-lg bg-slate-900">
        <iframe
          src={embed}
          title={`Video: ${lesson.title}`}
          className="size-full"
          loading="lazy"
          referrerPolicy="strict-origin-when-cross-origin"
          allow="accelerometer; encrypted-media; gyroscope; picture-in-picture; fullscreen"
          allowFullScreen
        />
      </div>
    )
  }
  if (file && !failed) {
    return (
      <video
        key={file}
        src={file}
        controls
        preload="metadata"
        playsInline
        aria-label={`Video: ${lesson.title}`}
        className="aspect-video w-full rounded-lg bg-slate-900"
        onError={() => setFailed(true)}
      >
        Your browser cannot play this video.
      </video>
    )
  }
  return (
    <div data-video-fallback className="flex aspect-video w-full flex-col items-center justify-center gap-2 rounded-lg bg-muted px-6 text-center text-muted-foreground">
      <VideoOffIcon className="size-8" aria-hidden="true" />
      <p>This video could not be loaded. The lesson text below covers the same material.</p>
    </div>
  )
}
