package memory

import "strings"

// synonymGroups are small sets of words people use interchangeably in
// requests to a desktop assistant. Kept narrow on purpose: every broad set
// raises false recalls. One group per line; words are stemmed on load.
const synonymGroups = `
send mail forward share deliver distribute
show display view
fix repair mend patch resolve correct fixup fixups
verify check confirm validate inspect
close quit exit shut shutdown poweroff
begin start kick
buy purchase order
book reserve reservation
cancel unsubscribe revoke scrap stop
plan schedule organise arrange cron
remind ping nudge notify notification notifications alert alerts chase
upload share post publish
recover restore undelete retrieve
cloud online onedrive gdrive dropbox icloud
doctor dentist physician clinic checkup gp orthodontist
medicine medication medications meds pills tablets prescription antibiotics
house home apartment flat household
rent lease landlord tenant tenants tenancy renter renters rental rentals
salary paycheck payslip wage wages
job work office career vacancy vacancies role position employment
homework assignment coursework essay essays
school university college course uni
sleep bedtime nap naps
run jog running jogging
run execute executing
song songs tune tunes
movie movies film films show
tv television series episodes
address location place where
map maps directions route navigation
bus buses transit metro subway tram underground
taxi cab uber ride
dinner dinners supper suppers lunch breakfast brunch meal cook
account profile login signin
message text sms chat chats conversation conversations dm dms whatsapp imessage telegram thread threads
photo selfie
font fonts typeface
icon icons logo
storage disk space gigabytes
slow slower slowest sluggish lag laggy
fast faster quick quicker speed
fastest quickest
noise noises noisy loud louder sound sounds racket
quiet silent silence silenced mute muted calm
neighbors neighbours street
packages parcel parcels delivery shipment shipping
tracking track status where
warranty guarantee
subscription subscriptions membership plan
password passcode pin
history visited
cookie cookies cache
update upgrade patch
driver drivers firmware
folder folders directories
downloads downloaded downloading
test tests testing unit spec specs suite
lint linter linting style formatting format prettier formatter
bug bugs issue issues error errors crash crashes failure failing broken defect defects glitch glitches exception exceptions
deploy deployment release ship publish
push upload publish
diff difference differences compare comparison contrast
log logs history
clipboard copied paste pasted
tab tabs website websites site sites page pages url urls link links webpage
memory ram
cpu processor load
thumbnail thumbnails preview previews
metadata exif location gps
inbox unread mailbox
attachment attachments attached
call calls zoom ring
invoice invoices bill bills receipt receipts
tax taxes hmrc irs
presentation presentations slides slide deck powerpoint keynote
journal diary logbook
download downloads downloaded grab save
music song songs playlist playlists track tracks album
article articles post posts blog
news headlines
price prices cheapest cheap cheaper deal deals affordable inexpensive lowest bargain bargains
flight flights ticket tickets booking fare fares
hotel hotels accommodation lodging
summary summaries tldr gist overview
birthday birthdays bday
friend friends buddy pal mate mates
boss manager supervisor
colleague colleagues coworker coworkers team teammates
customer customers client clients buyer buyers
deadline deadlines due
task tasks todo chore chores
weekly every week
monthly every month
error warning warnings
folder subfolder subfolders
empty blank
old stale outdated unused
duplicate duplicates copies identical
large larger biggest heaviest largest
screenshot screenshots screengrab
pdf pdfs portable
count counts number tally
near nearby local around neighbourhood neighborhood
total spend spent spending expense expenses sum
docx msword
desktop homescreen
login logon signin
latest last recent newest previous
keep retain preserve
photo photos picture pictures pic pics image images snapshot snapshots shot shots graphic graphics
screenshot screenshots screencap capture
picture pictures photo photos image images
video videos clip clips recording footage movie
audio recording recordings voice memo memos sound
transcribe transcription dictation
document documents doc docs docx paper file paperwork
spreadsheet spreadsheets sheet sheets excel csv workbook worksheet worksheets
calendar schedule agenda diary planner
meeting meetings appointment appointments event events session sessions class classes lesson lessons
gym fitness workout workouts exercise training
email emails mail mails message messages letter inbox
draft compose write pen
note notes notebook memo jot
reminder reminders remind alert alarm
remember memorize note save keep
contact contacts address
neighbour neighbours neighbor neighbors
party fest festival celebration gathering
invite invitation invitations inviting
complaint complain grievance moan moaning moans grumble grumbling gripe gripes
airline carrier flight flights airport plane fly flying
luggage baggage suitcase suitcases bag bags
lost missing vanished
compensation refund reimbursement
train trains rail railway railways
times timetable schedule departures departure
dog dogs puppy puppies pup pet pets
cat cats kitten kittens kitty
sitter sitters babysitter minder carer walker
review reviews rated rating ratings recommended
find search look locate lookup seek hunt google googling discover
convert conversion change turn transform export
merge combine consolidate unify squash
duplicate duplicates twice repeat repeats repeated dupes
remove delete erase strip eliminate clear wipe purge trash uninstall prune scrub
list lists roster rota inventory
guest guests invitee invitees attendee attendees visitors
rank sort ranking
bookmark bookmarks favorites favourites
visit visits frequent often
browser chrome firefox safari
wallpaper background desktop
quote quotes saying sayings
motivational inspirational inspiring uplifting
daily every day each everyday
startup boot start starts launch launches autostart automatically
app apps application applications program programs software
laptop notebook computer machine pc macbook
battery cell batteries charge
health wear worn condition capacity
cycle cycles
commit commits snapshot revision
undo revert reset rollback roll reverse
change changes edits edit modifications modify modified modifies alter altered amend amended tweak tweaked
branch branches feature
main master trunk
pull fetch
rebase
latest newest recent most current
todo todos fixme fixmes
comment comments markers marker annotations feedback
codebase code source repo repository project
collect gather assemble aggregate
spend spent spending expense expenses cost costs
restaurant restaurants dining eating food meals takeout takeaway takeaways
year annual yearly
car vehicle auto
license licence registration plate
insurance policy
renew renews renewal expire expires expiry lapse lapses lapsed
sync synchronise synchronize backup upload mirror
folder directory dir
phone iphone android mobile telephone
jpg jpeg png
heic
format formats
weather forecast temperature
price prices cost costs
translate translation translated
summarize summarise summary recap overview digest condense gist tldr rundown highlights
clean tidy cleanup declutter organize organise sort
big large huge heavy
small tiny little
disk storage space drive
process processes running
kill stop terminate quit
install setup fit fitted fitting
update upgrade refresh
zip compress archive shrink
unzip decompress
password passwords credentials login apikey
wifi wireless network internet broadband
print printer printing
copy duplicate clone
move relocate transfer shift migrate migration
rename retitle relabel
backup backups
resize shrink scale smaller size
grocery groceries shopping
recipe recipes cooking dish bake baking
birthday birthdays anniversary
mom mother mum
dad father
kids children child son daughter
week weekly
weekend saturday
weekend sunday
morning early
evening night tonight overnight
export exported download downloaded
sick ill unwell poorly
vet veterinarian
pharmacy chemist drugstore pharmacist
shop shops supermarket grocer
buy bought purchase purchased
fridge refrigerator
couch sofa
rubbish trash garbage waste bin bins
money finance finances budget
contract agreement
loan loans mortgage borrow borrowed lend
holiday holidays vacation vacations trip trips getaway journey travel travelling traveling
cv resume
chart charts graph graphs plot diagram visualise visualize
proofread proofreading spellcheck spelling grammar typos
reply replies respond answer
decline reject refuse
postpone reschedule delay
dependency dependencies deps package packages module modules
split separate divide
trim cut shorten crop cropped
screen display monitor
settings preferences options config configuration
freeze freezes frozen hang hangs unresponsive
usb external thumbdrive
spam junk
row rows entry entries
column columns field fields
blurry blurred unfocused fuzzy
restart reboot
heating heater boiler radiator radiators
leak leaks leaking leaky drip dripping
teacher teachers tutor instructor lecturer coach
flaky intermittent unreliable
pullrequest pr prs
socialmedia twitter tweet tweets
socialmedia facebook
socialmedia instagram
socialmedia linkedin
disable deactivate
enable activate
signup register registration enrol enroll
breach breached leak leaked hack hacked compromised
washer washers
manual manuals handbook guide instructions
terminal console cli
followup chase chasing
ask enquire inquire enquiry inquiry request requesting
pay paying paid settle
categorise categorize classify category categories
label labels tag tags sticker stickers
scan scanned scanner digitise digitize
rewrite rephrase reword paraphrase
calculate calculation compute estimate
transaction transactions payment payments
bike bikes bicycle bicycles
garden yard
electricity energy power
supplier suppliers provider providers vendor vendors
headphones earphones earbuds
lift elevator
trainers sneakers shoes footwear
trousers pants
jumper sweater
nappy nappies diaper diapers
pram stroller pushchair buggy
petrol fuel gasoline
motorway highway freeway
tap faucet
cooker stove oven hob
hoover vacuum
hike hikes hiking walk walks walking trek trekking ramble rambling
trail trails footpath footpaths
sparky electrician electricians
chippy carpenter joiner
handyman handymen
decorator decorators painter painters
builder builders contractor contractors
hairdresser hairdressers barber barbers salon haircut
suggest suggestion suggestions recommend recommendation recommendations propose advise
choose pick select selection decide
learn learning study studying revise revision
exam exams quiz quizzes
clothes clothing outfit outfits garments
donate donation donations charity charities
surname lastname
generate produce create
explain describe explanation description
topup recharge
partner spouse
broken faulty busted defective damaged smashed cracked snapped
finish finished complete completed
pause paused suspend
add insert
replace swap substitute
practice practise rehearse rehearsal
umbrella umbrellas brolly
upbeat energetic lively
lawn lawns grass turf
docker container containers
coast coastal seaside beach
sideeffects reaction reactions
bloodpressure bp
menu menus meal meals
2fa mfa
remote upstream origin
raw unedited
detect detected detects recognise recognised recognize recognized
extension extensions addon addons plugin plugins
son sons boy boys lad
daughter daughters girl girls
outdoor outdoors outside
clash clashes conflict conflicts overlap overlaps
wedding weddings reception
avatar avatars headshot headshots
apology apologise apologize sorry
airquality pollution smog
imported foreign
webcam webcams camera cameras
garage mechanic mechanics
flatmate flatmates housemate housemates roommate roommates
limerick limericks poem poems verse verses
company companies firm firms business businesses
sell selling sale sold
christmas xmas festive
usage consumption
pension pensions retirement
renovation renovations remodel refurbishment refurb makeover
certificate certificates cert certs
owe owed debt debts
staff employees employee workforce
baby babies infant infants newborn
survey surveys questionnaire poll
rain rainy raining
damp mould mold condensation
jacket jackets coat coats
income earnings revenue
idle inactive
sunset dusk sundown
sunrise dawn daybreak
teenager teenagers teen teens adolescent
valuation worth
tyre tyres tire tires
dimensions measurements size
megabyte megabytes mb
gigabyte gigabytes gb
plug plugs socket sockets outlet outlets
ci pipeline pipelines
intern interns trainee trainees apprentice
barbecue barbecues bbq grill grilling
mistake mistakes error errors
centre centres center centers
colour colours color colors
catalogue catalog
theatre theater
jewellery jewelry
pyjamas pajamas
aluminium aluminum
defence defense
bigger larger
flower flowers bouquet bouquets
suspicious dodgy fishy
cafe cafes coffeehouse
private personal
advisor advisors adviser advisers consultant
topic topics subject subjects
kilo kilos kg kilogram kilograms
developer developers programmer programmers dev devs coder
candidate candidates applicant applicants
unlimited endless infinite
money cash
choice choices option options
adapter adaptor adapters charger
proof evidence
stats statistics figures
km kms kilometre kilometres kilometer kilometers
abroad overseas
increase increases rise rises bump increment
leaflet leaflets flyer flyers pamphlet brochure
bio biography biographies
toxic poisonous
flashing blinking
healthy healthier
warm warmer
polite politely courteous nicely
carpet carpets rug rugs
story stories tale tales
pounds quid
nearest closest
gift gifts presents
concert concerts gig gigs
vegetarian veggie
strike strikes walkout walkouts
wrong incorrect
ink cartridge cartridges toner
electronics gadgets gadget
fee fees charge charges
student students pupil pupils
info information details
limit limits cap capped
goodbye farewell leaving
extend extended renew renewal
messy untidy cluttered
talk talks presentation presentations
reference references recommendation recommendations vouch referee referees
whole entire
idea ideas suggestion suggestions
virus viruses malware
reduce reduces reduced decrease lower lowering
question questions query queries
city cities town towns
database databases db
defrost defrosting thaw thawing
marketing promotional advertising adverts ads
handwritten handwriting scribbled
vm vms
lorry truck
newsletter newsletters bulletin bulletins mailout mailouts mailshot mailshots
autoreply autoresponder
tos terms
dump tip landfill
street road roads avenue lane
speech toast
embarrassing cringe cringey awkward cringeworthy
funny humorous lighthearted witty amusing hilarious jokes
late delay delayed delays overdue
temp temporary tmp
empty clear purge flush
rule rules regulations allowed permitted permission
carry carrying bring
charger charging
powerbank charger
collect collects collected collection collector collectors
vaccine vaccination vaccinations jab booster
coupon voucher discount promo
return returns refund
physio physiotherapy physiotherapist
aubergine eggplant
courgette zucchini
coriander cilantro
wardrobe closet
cupboard cabinet cupboards cabinets
dryer drier
fortnight fortnightly biweekly
urgent urgently asap
allergy allergies allergic hayfever
symptom symptoms signs
recruiter recruiters headhunter headhunters recruitment
process processes program programs
backup backups copy
fundraiser fundraisers fundraising charity
subtitles captions
debug troubleshoot diagnose
refactor restructure
satnav navigation gps
grandpa grandad granddad grandfather
curtains drapes
sweets candy
football soccer
maths math mathematics
torch flashlight
lawyer attorney solicitor
term semester
headteacher principal headmaster
camping camp campsite tent tents
quote quotes quotation quotations estimate estimates
conference conferences summit symposium
pixel pixels px
family relatives folks
server servers vps
thankyou thanks gratitude appreciation
build builds compile compiles compiling compilation
lock locks padlock
date dates dated timestamp timestamps
markdown md
auth authentication authenticate
beginner beginners novice novices newbie
oldest earliest
npm nodejs node
lecture lectures class classes seminar seminars
overspent overspend overspending
upcoming forthcoming
bookkeeper bookkeepers accountant accountants
mileage miles
router routers modem modems
vulnerability vulnerabilities vulnerable insecure exploit exploits cve cves
taxman hmrc irs
culprit culprits offender offenders
guess guessing guessed estimated approximate
fail fails failing failed die dies dying break breaks breaking
`

// contrastClasses are closed classes of words that are alike in every
// context, so word vectors put them side by side, yet name different
// things: "friday" is not "thursday", "french" is not "german". A word
// gets no credit by meaning for another of its class.
const contrastClasses = `
monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
spring summer autumn fall winter
english french german spanish italian portuguese dutch russian chinese mandarin cantonese japanese korean arabic hindi turkish greek polish swedish norwegian danish finnish czech hebrew thai vietnamese indonesian ukrainian romanian irish welsh scottish british american canadian australian mexican brazilian indian european african asian
red orange yellow green blue purple pink brown black white grey gray
one 2 3 4 5 6 7 8 9 10 11 12 20 30 40 50 60 100 thousand million billion
first second
north south east west northern southern eastern western
mother mum mom father dad sister brother aunt uncle grandmother grandma gran nan grandfather grandpa grandad niece nephew cousin wife husband son daughter
dog dogs puppy cat cats kitten rabbit hamster horse bird parrot goldfish snake tortoise
plumber electrician carpenter joiner builder decorator painter roofer locksmith mechanic gardener cleaner
kitchen bathroom bedroom garage hallway lounge loft attic cellar basement
football tennis golf cricket rugby basketball baseball hockey swimming cycling
piano guitar violin drums cello flute saxophone trumpet
laptop phone tablet printer router television camera speaker headphones keyboard mouse smartwatch
car bike bicycle motorbike motorcycle bus train plane boat ferry taxi van scooter
pdf docx jpg png heic csv xlsx mp3 mp4 wav gif svg txt html json xml yaml
python javascript typescript java rust ruby php swift kotlin perl
windows mac macos linux ubuntu
`

// contrast maps a word's stem to its contrast class, plus one.
var contrast = func() map[string]int {
	m := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(contrastClasses), "\n") {
		for _, w := range strings.Fields(line) {
			m[stem(w)] = i + 1
		}
	}
	return m
}()

// synonyms maps a stem to the ids of the groups it belongs to.
var synonyms = func() map[string][]int {
	m := map[string][]int{}
	for i, line := range strings.Split(strings.TrimSpace(synonymGroups), "\n") {
		for _, w := range strings.Fields(line) {
			s := stem(strings.ToLower(w))
			m[s] = append(m[s], i)
		}
	}
	return m
}()

// synonymous reports whether two stems share a synonym group.
func synonymous(a, b string) bool {
	ga, gb := synonyms[a], synonyms[b]
	for _, x := range ga {
		for _, y := range gb {
			if x == y {
				return true
			}
		}
	}
	return false
}

// joins are two- and three-word expressions read as one word, when only spaces
// separate them: phrasal verbs ("log in" is "login", not "the server
// log"; "back up" is "backup", not "go back"; "get rid" of is "remove"),
// compounds written either way ("pull request", "to do list") and two-word
// names of one thing ("property owner" is a landlord). The index holds
// triggers in these words; mappingVersion covers this list.
var joins = map[string]string{
	"log in": "login", "log on": "login", "logged in": "login", "logging in": "login",
	"sign in": "signin", "signed in": "signin", "sign on": "signin",
	"sign up": "signup", "signed up": "signup",
	"back up": "backup", "backed up": "backup", "backing up": "backup",
	"start up": "startup", "shut down": "shutdown",
	"clean up": "cleanup", "tidy up": "tidy",
	"look up": "lookup", "looked up": "lookup",
	"log out": "logout", "sign out": "logout", "log off": "logout",
	// Phrasal verbs read as the plain verb they mean.
	"get rid": "remove", "throw away": "remove", "throw out": "remove",
	"clear up": "cleanup", "sort out": "organise", "figure out": "find",
	"look into": "check", "go over": "check", "go through": "check", "look over": "check",
	"keep track": "track", "put together": "assemble", "reach out": "contact",
	"in touch": "contact", "look for": "search", "turn into": "convert",
	"boot up": "startup", "print off": "print", "fix up": "fix", "call back": "call",
	"hand in": "submit", "send in": "submit",
	// Compound nouns people write either way.
	"pull request": "pullrequest", "merge request": "pullrequest",
	"to do list": "todo", "e mail": "email", "wi fi": "wifi",
	"web site": "website", "web page": "webpage", "screen shot": "screenshot",
	"file name": "filename", "user name": "username",
	// Two-word names of one thing, read as that thing.
	"property owner": "landlord", "property manager": "landlord", "letting agent": "landlord",
	"next door": "neighbour", "hard drive": "disk", "hard disk": "disk",
	"travel document": "passport", "screen capture": "screenshot", "screen grab": "screenshot",
	"cell phone": "phone", "mobile phone": "phone", "web browser": "browser",
	"video call": "call", "phone call": "call", "social media": "socialmedia",
	"turn off": "disable", "switch off": "disable", "turn on": "enable", "switch on": "enable",
	"put off": "postpone", "call off": "cancel", "print out": "print",
	"write down": "note", "jot down": "note", "note down": "note",
	"clear out": "clear", "clean out": "cleanup", "data breach": "breach",
	"washing machine": "washer", "dish washer": "dishwasher", "grocery store": "supermarket",
	"car park": "parking", "parking lot": "parking", "trash can": "bin", "garbage can": "bin",
	"rubbish bin": "bin", "birth date": "birthday", "day off": "holiday", "days off": "holiday",
	"time off": "holiday", "sick day": "sick", "sick leave": "sick", "credit card": "card",
	"debit card": "card", "user manual": "manual", "instruction manual": "manual",
	"instruction booklet": "manual", "operating system": "os", "home screen": "homescreen",
	"source code": "code", "code base": "codebase", "command line": "terminal",
	"keyboard shortcut": "shortcut", "memory stick": "usb", "flash drive": "usb",
	"thumb drive": "usb", "usb stick": "usb", "cloud storage": "cloud", "online storage": "cloud",
	"junk mail": "spam", "time zone": "timezone", "due date": "deadline", "tax return": "tax",
	"pay slip": "payslip", "stand up": "standup", "follow up": "followup", "get together": "gathering",
	"best friend": "friend",
	// British and American names of one thing.
	"zip code": "postcode", "post code": "postcode", "estate agent": "realtor",
	"part exchange": "tradein", "trade in": "tradein", "current account": "checking",
	"checking account": "checking", "running late": "late",
	// Fourth round: everyday phrases for one thing or act.
	"pick up": "collect", "picked up": "collect", "picks up": "collect", "picking up": "collect",
	"bin men": "collector", "bin man": "collector", "bin day": "collection",
	"run out": "expire", "runs out": "expire", "ran out": "expire", "running out": "expire",
	"set up": "setup", "sets up": "setup", "setting up": "setup",
	"fill in": "fill", "fill out": "fill", "filled in": "fill", "filled out": "fill",
	"opt out": "unsubscribe", "mailing list": "newsletter",
	"power bank": "powerbank", "portable charger": "powerbank", "battery pack": "powerbank",
	"charging point": "charger", "charging station": "charger",
	"electric car": "ev", "electric vehicle": "ev",
	"hand luggage": "carryon", "cabin bag": "carryon", "carry on luggage": "carryon",
	"bank holiday": "publicholiday", "public holiday": "publicholiday", "national holiday": "publicholiday",
	"cooker hood": "rangehood", "range hood": "rangehood", "extractor fan": "rangehood", "extractor hood": "rangehood",
	"light hearted": "lighthearted",
	"out of office": "autoreply", "away message": "autoreply", "auto reply": "autoreply",
	"automatic reply": "autoreply", "vacation responder": "autoreply",
	"terms and conditions": "tos", "terms of service": "tos", "terms of use": "tos",
	"small print": "tos", "fine print": "tos",
	"out of date": "outdated", "out of stock": "soldout", "sold out": "soldout",
	"cron job": "cron", "scheduled task": "cron", "scheduled job": "cron",
	"recycling centre": "dump", "recycling center": "dump",
	"annual leave": "holiday", "on leave": "holiday",
	"promo code": "coupon", "discount code": "coupon", "send back": "return", "take back": "return",
	"tumble dryer": "dryer", "2 weeks": "fortnight", "sat nav": "satnav",
	"stack trace": "traceback", "environment variable": "envvar", "env var": "envvar",
	"smoke alarm": "smokealarm", "smoke detector": "smokealarm", "light bulb": "bulb",
	"boarding pass": "boardingpass", "round trip": "return", "physical therapy": "physio", "blood pressure": "bloodpressure",
	"emergency room": "emergency", "time sheet": "timesheet",
	"till slip": "receipt", "till receipt": "receipt",
	"track down": "find", "hunt down": "find", "dig out": "find", "dig up": "find",
	"work out": "find", "pull up": "show", "bring up": "show",
	"weed out": "remove", "cut out": "remove", "strip out": "remove", "take out": "remove",
	"pull out": "extract", "pass on": "forward", "get back to": "reply",
	"power off": "shutdown", "power down": "shutdown", "shut off": "disable",
	"top up": "topup", "topped up": "topup", "pay back": "repay", "fill up": "fill",
	"near me": "local", "near here": "local", "around here": "local", "close by": "local",
	"this area": "local", "my area": "local", "our area": "local",
	"map out": "plan", "road trip": "roadtrip", "couple of": "2", "swap out": "replace",
	"api key": "apikey", "side effect": "sideeffects",
	"web address": "domain", "domain name": "domain",
	"use by": "expiry", "best before": "expiry", "expiry date": "expiry", "expiration date": "expiry",
	"2 factor": "2fa", "2 step": "2fa", "multi factor": "2fa", "2fa authentication": "2fa",
	"2fa verification": "2fa", "tax filing": "tax",
	"release note": "changelog", "change log": "changelog",
	"half term": "schoolholiday", "school holiday": "schoolholiday",
	"school break": "schoolholiday", "term break": "schoolholiday", "spring break": "schoolholiday",
	"serial number": "serial", "frame number": "serial", "new starter": "newhire", "new hire": "newhire",
	"new joiner": "newhire", "new employee": "newhire", "second display": "externalmonitor",
	"second monitor": "externalmonitor", "second screen": "externalmonitor", "external display": "externalmonitor",
	"external monitor": "externalmonitor", "external screen": "externalmonitor", "add on": "addon",
	"working hours": "workhours", "work hours": "workhours", "office hours": "workhours",
	"business hours": "workhours", "at work": "workhours",
	"double booking": "clash", "double booked": "clash",
	"profile picture": "avatar", "profile photo": "avatar", "profile pic": "avatar",
	"dark mode": "darkmode", "night mode": "darkmode", "dark theme": "darkmode", "night theme": "darkmode",
	"last quarter": "lastquarter", "last 3 months": "lastquarter", "past 3 months": "lastquarter",
	"animal hospital": "vet", "say sorry": "apology", "air quality": "airquality",
	"service history": "servicehistory", "maintenance records": "servicehistory",
	"maintenance history": "servicehistory", "turn down": "decline", "turned down": "decline",
	"say thanks": "thankyou", "note of thanks": "thankyou", "thank you": "thankyou",
	"thankyou note": "thankyou", "thankyou card": "thankyou", "thankyou message": "thankyou",
	"thankyou letter": "thankyou", "thankyou email": "thankyou", "look after": "care", "looked after": "care", "looking after": "care",
	"first thing": "early", "annual test": "mot", "mot test": "mot",
	"past 7 days": "week", "last 7 days": "week", "step count": "steps",
	"public transport": "transit", "direct debit": "directdebit",
	"standing order": "directdebit", "roll over": "rollover", "carry over": "rollover",
	"carries over": "rollover", "rolls over": "rollover",
	"opening hours": "openinghours", "opening times": "openinghours", "mum and dad": "parents",
	"mom and dad": "parents", "local authority": "council", "town hall": "council", "plant based": "vegan",
	"meat free": "vegetarian", "per cent": "percent", "coffee shop": "cafe", "kick off": "kickoff",
	"by mistake": "accidentally", "by accident": "accidentally", "recipe book": "cookbook",
	"screen recording": "screencast", "virtual machine": "vm", "high res": "highres", "hi res": "highres",
	"full resolution": "highres", "high resolution": "highres",
	"hay fever": "hayfever", "network drive": "nas", "network storage": "nas",
	"called off": "cancel", "calling off": "cancel", "money back": "refund",
	"last name": "surname", "family name": "surname",
	"least expensive": "cheapest", "lowest price": "cheapest", "lowest priced": "cheapest",
	"check up": "checkup", "self employed": "freelance", "e book": "ebook",
	"other half": "partner", "build server": "ci", "ci server": "ci", "build machine": "ci",
	"mums and dads": "parents", "moms and dads": "parents", "round here": "local",
	"takes ages": "slow", "take ages": "slow", "taking ages": "slow", "takes forever": "slow",
	"take forever": "slow", "taking forever": "slow", "team sync": "standup", "daily sync": "standup",
	"somewhere to stay": "hotel", "place to stay": "hotel", "where to stay": "hotel",
	"somewhere to eat": "restaurant", "place to eat": "restaurant", "where to eat": "restaurant",
	"security warning": "vulnerability", "security issue": "vulnerability", "security hole": "vulnerability",
	"security flaw": "vulnerability", "security advisory": "vulnerability", "tax office": "taxman",
	"tax authority": "taxman", "tax authorities": "taxman", "in short": "summary", "in brief": "summary",
	"in a nutshell": "summary", "packed in": "broken", "conked out": "broken", "2 week": "fortnight",
	"driving holiday": "roadtrip", "driving trip": "roadtrip",
	"factory settings": "reset", "factory reset": "reset",
	"user folder": "homedir", "home folder": "homedir", "home directory": "homedir", "user directory": "homedir",
	"most room": "biggest", "most space": "biggest", "add up": "total", "adding up": "total",
	"mind the kids": "babysitter", "watch the kids": "babysitter",
	"cuts out": "drop", "cutting out": "drop",
	"chase up": "followup", "chasing up": "followup", "chased up": "followup", "write up": "draft",
	"drop off": "deliver", "send off": "submit", "free up": "clear", "weigh up": "compare",
	"boil down": "summary", "book in": "book", "hook up": "connect", "plug in": "connect",
	"pay off": "repay", "look through": "check", "dig through": "check", "read through": "check",
	"coming up": "upcoming", "set off": "departure",
	"over budget": "overspent", "by itself": "automatically", "by themselves": "automatically",
	"on its own": "automatically", "proof of purchase": "receipt", "credit rating": "creditscore",
	"credit score": "creditscore", "credit report": "creditscore", "last minute": "lastminute",
	"city break": "holiday", "short break": "holiday", "weekend break": "holiday",
	"address book": "contacts", "email chain": "thread", "email thread": "thread", "mail thread": "thread",
	"animal doctor": "vet", "under canvas": "camping", "cover letter": "coverletter",
	"covering letter": "coverletter", "application letter": "coverletter", "motivation letter": "coverletter",
	"parking spot": "parking", "parking space": "parking", "lowest cost": "cheapest", "best price": "cheapest", "most expensive": "priciest",
}
