import { describe, expect, it } from 'vitest'
import {
  formatCoursePrice,
  parseQuizOptions,
  playableVideoUrl,
  progressPercentage,
  youtubeEmbedUrl,
  youtubeVideoId,
} from '#common/courses'
import { SEED_COURSES, validateSeedContent, type SeedCourse } from '#server/services/courses'

describe('progressPercentage', () => {
  it('is the rounded share of completed lessons (halves round up)', () => {
    expect(progressPercentage(0, 6)).toBe(0)
    expect(progressPercentage(1, 6)).toBe(17)
    expect(progressPercentage(1, 3)).toBe(33)
    expect(progressPercentage(2, 3)).toBe(67)
    expect(progressPercentage(1, 8)).toBe(13)
    expect(progressPercentage(3, 8)).toBe(38)
    expect(progressPercentage(1, 40)).toBe(3)
    expect(progressPercentage(7, 7)).toBe(100)
  })

  it('is 0 for a course without lessons and never leaves 0–100', () => {
    expect(progressPercentage(0, 0)).toBe(0)
    expect(progressPercentage(9, 7)).toBe(100)
    expect(progressPercentage(-1, 7)).toBe(0)
  })
})

describe('parseQuizOptions', () => {
  it('accepts an array or a JSON string of one', () => {
    expect(parseQuizOptions(['a', 'b', 'c'])).toEqual(['a', 'b', 'c'])
    expect(parseQuizOptions('["a","b","c"]')).toEqual(['a', 'b', 'c'])
    expect(parseQuizOptions([1, 2, 'three'])).toEqual(['1', '2', 'three'])
  })

  it('gives no options for anything else', () => {
    expect(parseQuizOptions('not json')).toEqual([])
    expect(parseQuizOptions('{"a":1}')).toEqual([])
    expect(parseQuizOptions(null)).toEqual([])
    expect(parseQuizOptions([{ text: 'a' }, null])).toEqual([])
  })
})

describe('videos', () => {
  it('finds the YouTube id in the usual link shapes', () => {
    const id = 'Qm7Lr2dVx9E'
    for (const url of [
      id,
      `https://www.youtube.com/watch?v=${id}`,
      `https://youtube.com/watch?v=${id}&t=42s`,
      `https://m.youtube.com/watch?v=${id}`,
      `https://youtu.be/${id}`,
      `https://www.youtube.com/embed/${id}`,
      `https://www.youtube-nocookie.com/embed/${id}`,
      `https://www.youtube.com/shorts/${id}`,
    ]) {
      expect(youtubeVideoId(url), url).toBe(id)
    }
  })

  it('embeds only through the privacy-enhanced host, and nothing that is not YouTube', () => {
    expect(youtubeEmbedUrl('https://youtu.be/Qm7Lr2dVx9E')).toBe('https://www.youtube-nocookie.com/embed/Qm7Lr2dVx9E?rel=0')
    for (const url of ['https://evil.example/watch?v=Qm7Lr2dVx9E', 'javascript:alert(1)', 'https://www.youtube.com/watch?v=short', '']) {
      expect(youtubeEmbedUrl(url), url).toBeNull()
    }
  })

  it('plays plain videos from https or this site only', () => {
    expect(playableVideoUrl('https://media.example.com/a.mp4')).toBe('https://media.example.com/a.mp4')
    expect(playableVideoUrl('/videos/a.mp4')).toBe('/videos/a.mp4')
    for (const url of ['http://media.example.com/a.mp4', '//evil.example/a.mp4', 'javascript:alert(1)', 'data:video/mp4;base64,AAAA']) {
      expect(playableVideoUrl(url), url).toBeNull()
    }
  })
})

describe('formatCoursePrice', () => {
  it('shows whole dollars without cents and other amounts with two decimals', () => {
    expect(formatCoursePrice(4900)).toBe('$49')
    expect(formatCoursePrice(4950)).toBe('$49.50')
    expect(formatCoursePrice(1999)).toBe('$19.99')
  })
})

describe('the starter content', () => {
  it('passes its own rules', () => {
    expect(() => validateSeedContent(SEED_COURSES)).not.toThrow()
    for (const course of SEED_COURSES) {
      for (const lesson of course.lessons) {
        if (lesson.video?.type === 'youtube') expect(youtubeVideoId(lesson.video.url), lesson.title).not.toBeNull()
        if (lesson.video?.type === 'file') expect(playableVideoUrl(lesson.video.url), lesson.title).not.toBeNull()
      }
    }
  })

  it('refuses content that breaks them', () => {
    const base = SEED_COURSES[0]!
    const broken = (change: (course: SeedCourse) => void): SeedCourse[] => {
      const copy = structuredClone(base)
      change(copy)
      return [copy]
    }
    expect(() => validateSeedContent(broken((c) => (c.lessons = c.lessons.slice(0, 3))))).toThrow(/4 to 8 lessons/)
    expect(() => validateSeedContent(broken((c) => (c.lessons.at(-1)!.quizzes![0]!.correct = 'Nine')))).toThrow(/not an option/)
    expect(() => validateSeedContent(broken((c) => (c.lessons.at(-1)!.quizzes![0]!.options = ['a', 'b'])))).toThrow(/3 or 4 options/)
    expect(() => validateSeedContent([base, base])).toThrow(/twice/)
  })
})
